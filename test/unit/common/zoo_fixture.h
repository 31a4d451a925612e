// The model-zoo fixtures (test/fixtures/zoo, written by test/zoo/export_zoo.py) as the C++
// tests read them: where they are, the manifest, and a manifest value turned into an EValue.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include "json.h"
#include "npy.h"

namespace test {

// The fixtures, relative to the repository root (where `make check` runs); ET_ZOO_DIR
// overrides.
inline const std::string& zoo_dir() {
  static const std::string dir =
      std::getenv("ET_ZOO_DIR") ? std::getenv("ET_ZOO_DIR") : "test/fixtures/zoo";
  return dir;
}

// manifest.json, read once; an empty Json (not an Object) if it is missing.
inline const Json& zoo_manifest() {
  static Json m;
  static bool loaded = read_json(zoo_dir() + "/manifest.json", &m);
  (void)loaded;
  return m;
}

// One input of a call, kept alive while the method runs (unplanned inputs are shared, not
// copied).
struct ZooValue {
  Npy npy;
  std::unique_ptr<executorch::aten::TensorImpl> impl;
  executorch::runtime::EValue value;
};

// A manifest value ({"kind": "tensor", "file": ...} or int/double/bool; anything else is None).
inline bool make_zoo_value(const Json& d, ZooValue* in, std::string* err) {
  using executorch::runtime::EValue;
  const std::string kind = d["kind"].str;
  if (kind == "tensor") {
    if (!read_npy(zoo_dir() + "/" + d["file"].str, &in->npy, err)) {
      return false;
    }
    in->impl = std::make_unique<executorch::aten::TensorImpl>(
        in->npy.dtype, static_cast<ssize_t>(in->npy.shape.size()), in->npy.shape.data(),
        in->npy.data.data());
    in->value = EValue(executorch::aten::Tensor(in->impl.get()));
  } else if (kind == "int") {
    in->value = EValue(static_cast<int64_t>(d["value"].num));
  } else if (kind == "double") {
    in->value = EValue(d["value"].num);
  } else if (kind == "bool") {
    in->value = EValue(d["value"].b);
  } else {
    in->value = EValue();
  }
  return true;
}

}  // namespace test
