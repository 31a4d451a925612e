/*
 * Tag: which kind of value an EValue holds. The numeric values match the
 * .pte schema's order and must never change.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/defines.h>
#include <executorch/runtime/platform/compiler.h>

// X11's Xlib.h defines None as a macro, which would break Tag::None.
#ifdef None
#undef None
#endif

namespace executorch {
namespace runtime {

#define EXECUTORCH_FORALL_TAGS(_) \
  _(None)                         \
  _(Tensor)                       \
  _(String)                       \
  _(Double)                       \
  _(Int)                          \
  _(Bool)                         \
  _(ListBool)                     \
  _(ListDouble)                   \
  _(ListInt)                      \
  _(ListTensor)                   \
  _(ListScalar)                   \
  _(ListOptionalTensor)

enum class Tag : uint32_t {
#define ET_INTERNAL_TAG_ENUMERATOR(_name) _name,
  EXECUTORCH_FORALL_TAGS(ET_INTERNAL_TAG_ENUMERATOR)
#undef ET_INTERNAL_TAG_ENUMERATOR
};

/* Large enough for the longest tag name plus its terminator. */
constexpr size_t kTagNameBufferSize = 19;

#if ET_ENABLE_ENUM_STRINGS
/* The tag's name ("Tensor", "ListInt", ...), or "Unknown". */
inline const char* tag_to_string(Tag tag) {
  switch (tag) {
#define ET_INTERNAL_TAG_NAME(_name) \
  case Tag::_name:                  \
    return #_name;
    EXECUTORCH_FORALL_TAGS(ET_INTERNAL_TAG_NAME)
#undef ET_INTERNAL_TAG_NAME
  }
  return "Unknown";
}
#endif  // ET_ENABLE_ENUM_STRINGS

/*
 * Writes the tag's name into `buffer` (NUL-terminated, truncated to fit).
 * Returns the length of the full name, like snprintf, so a result >=
 * buffer_size means truncation.
 */
ET_API size_t tag_to_string(Tag tag, char* buffer, size_t buffer_size);

/* True for tags whose payload is a scalar (Int, Double, Bool). */
inline bool isPrimitiveType(Tag tag) {
  return tag == Tag::Int || tag == Tag::Double || tag == Tag::Bool;
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Tag;
}  // namespace executor
}  // namespace torch
