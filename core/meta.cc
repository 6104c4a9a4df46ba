// Copyright 2026 The FX for C++ Authors.
#include "core/meta.h"

namespace fx {

Meta::Meta() = default;
Meta::Meta(std::initializer_list<Entry> entries) {
  for (const Entry& e : entries) set(e.first, e.second);
}
Meta::Meta(const Meta&) = default;
Meta::Meta(Meta&&) noexcept = default;
Meta& Meta::operator=(const Meta&) = default;
Meta& Meta::operator=(Meta&&) noexcept = default;
Meta::~Meta() = default;

void Meta::set(absl::string_view key, MetaValue value) {
  if (MetaValue* existing = find(key)) {
    *existing = std::move(value);
    return;
  }
  entries_.emplace_back(std::string(key), std::move(value));
}

const MetaValue* Meta::find(absl::string_view key) const {
  for (const Entry& e : entries_) {
    if (e.first == key) return &e.second;
  }
  return nullptr;
}

MetaValue* Meta::find(absl::string_view key) {
  for (Entry& e : entries_) {
    if (e.first == key) return &e.second;
  }
  return nullptr;
}

MetaValue& Meta::operator[](absl::string_view key) {
  if (MetaValue* existing = find(key)) return *existing;
  entries_.emplace_back(std::string(key), MetaValue());
  return entries_.back().second;
}

bool Meta::erase(absl::string_view key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == key) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

void Meta::clear() { entries_.clear(); }
size_t Meta::size() const { return entries_.size(); }
bool Meta::empty() const { return entries_.empty(); }
std::vector<Meta::Entry>::const_iterator Meta::begin() const { return entries_.begin(); }
std::vector<Meta::Entry>::const_iterator Meta::end() const { return entries_.end(); }

bool Meta::operator==(const Meta& other) const { return entries_ == other.entries_; }

}  // namespace fx
