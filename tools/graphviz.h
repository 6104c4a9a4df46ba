// Copyright 2026 The FX for C++ Authors.
//
// graphviz.h: Graphviz's `dot` program, found and run to draw DOT text as SVG
// or PNG (fxrun --emit=svg|png; the text comes from tools/graph_dot.h).
//
//   auto dot_program = fx::find_graphviz_dot();                 // "/usr/bin/dot"
//   if (!dot_program.ok()) return dot_program.status();         // says: apt-get install graphviz
//   auto svg = fx::render_with_graphviz(*dot_program, dot_text, "svg");
//   if (svg.ok()) write(svg->output);                           // an <svg> document
//
// Rendering runs Debian's `dot` program (package graphviz) as a subprocess,
// not libgvc: the program is one apt package away on every Debian machine, its
// command line is stable across Graphviz versions where libgvc's C API and
// plugin set are not, a crash or runaway layout in it cannot take fxrun down,
// and fxrun builds and runs without Graphviz when no picture is asked for.
//
// Contracts:
//   * find_graphviz_dot searches PATH as a shell would; when `dot` is not there
//     the error says to install Debian's graphviz.
//   * render_with_graphviz runs `dot -T<format>` (format: svg or png) without
//     a shell. It feeds dot the text on stdin while reading its stdout and
//     stderr (no deadlock on large graphs; a SIGPIPE from a dot that exits
//     early is absorbed, not delivered), and waits for it. A non-zero exit
//     status or a signal is an Internal error quoting dot's first line on
//     stderr; on success what dot wrote on stderr comes back as warnings.
//   * Fonts: dot finds its fonts through fontconfig, which keeps a cache of
//     the font directories and must rebuild it when it is missing or stale
//     (a fresh machine, an image whose /var/cache was emptied). With no
//     writable cache directory it warns "Fontconfig error: No writable cache
//     directories" on every run. Debian's fontconfig looks for caches in
//     /var/cache/fontconfig (root's, written by fc-cache) and in
//     $XDG_CACHE_HOME/fontconfig ($HOME/.cache/fontconfig when unset). When
//     that user cache directory cannot be written (no HOME, a read-only home,
//     a sandbox such as Bazel's), dot runs with XDG_CACHE_HOME set to
//     fxrun's own directory `$TMPDIR/fxrun-<uid>-cache` (or /tmp's), made
//     with mode 0700 and used only when it is a directory of this user that
//     nobody else can write; the first run there builds the cache, later runs
//     reuse it. Otherwise the environment is passed on unchanged.
//   * A PNG is scaled down to fit 100 by 100 inches (9600 pixels a side): a
//     bitmap of a large graph in full takes gigabytes and minutes, and an
//     SVG, always drawn in full, is the picture for those.
//   * A dot that has not finished after `limit` (kDotTimeLimit: dot draws
//     inlined ResNet-50, 656 nodes, in about 0.2 s of CPU as SVG, 2.5 s as
//     PNG) is killed, and the error says so and what to do instead.
//   * render_with_graphviz is thread-compatible: calls on several threads
//     touch only their own pipes and their own thread's signal mask.
#ifndef FX_TOOLS_GRAPHVIZ_H_
#define FX_TOOLS_GRAPHVIZ_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/strings/string_view.h"

namespace fx {

// The path of Graphviz's `dot` on PATH, or a NotFound error saying how to
// install it.
absl::StatusOr<std::string> find_graphviz_dot();

struct RenderedPicture {
  std::string output;                 // the svg document or png bytes
  std::vector<std::string> warnings;  // dot's stderr lines, when it succeeded
};

inline constexpr absl::Duration kDotTimeLimit = absl::Minutes(10);

// `dot_text` laid out and rendered by the `dot` program at `dot_program`, as
// `format` ("svg" or "png"), within `limit`.
absl::StatusOr<RenderedPicture> render_with_graphviz(const std::string& dot_program,
                                                     absl::string_view dot_text,
                                                     absl::string_view format,
                                                     absl::Duration limit = kDotTimeLimit);

// The XDG cache directory dot is given (see Fonts above): "" when the
// caller's own is writable and is passed on unchanged.
std::string graphviz_private_cache_home();

}  // namespace fx

#endif  // FX_TOOLS_GRAPHVIZ_H_
