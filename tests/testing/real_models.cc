// Copyright 2026 The FX for C++ Authors.
#include "tests/testing/real_models.h"

namespace fx {
namespace testing {

const std::vector<std::string>& real_model_names() {
  // The same list as REAL_MODELS in tests/fixtures/BUILD.
  static const auto* names = new std::vector<std::string>{
      "lraspp_mobilenet_v3_large",
      "deeplabv3_mobilenet_v3_large",
      "fcn_resnet10",
      "r3d_18",
      "mc3_18",
      "r2plus1d_18",
      "fpn_resnet18",
      "fpn_mobilenet_v3_large",
      "feature_pyramid_network",
      "vit_tiny",
      "swin_tiny",
      "raft_small",
      "transformer_encoder_layer_bf",
      "transformer_encoder_layer_sf",
      "transformer_decoder_layer",
      "transformer_encoder",
      "multihead_attention",
      "lstm",
      "gru",
      "rnn",
      "bilstm2",
      "gpt_block",
      "mini_gpt",
      "dict_items",
      "list_append",
      "inplace_alias_relu",
      "inplace_input_add",
      "inplace_view_mul",
      "inplace_iadd_fresh",
      "optional_arg",
      "functional_image",
      "functional_seq",
      "tiny_unet",
      "bool_arg",
      "input_check_bn1d",
      "mlp_bn1d",
      "conv_no_bias",
      "tensor_product",
      "optional_default_bias",
      "cross_attention",
      "returns_input_inplace",
      "inplace_metadata_views",
      "hooked_leaves",
      "dtype_literals",
      "advanced_indexing",
      "regnet_small",
      "no_grad_teacher",
      "t5_feed_forward",
      "named_tuple_heads",
  };
  return *names;
}

TraceOptions real_model_trace_options(const std::string& name) {
  TraceOptions options;
  if (name == "bool_arg") options.concrete_args = {{"use_b", false}};
  // Called without its Optional `bias` (as saved): torch.fx's concrete_args.
  if (name == "optional_default_bias") options.concrete_args = {{"bias", Argument()}};
  return options;
}

}  // namespace testing
}  // namespace fx
