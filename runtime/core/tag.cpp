#include <executorch/runtime/core/tag.h>

#include <cstring>

namespace executorch {
namespace runtime {

size_t tag_to_string(Tag tag, char* buffer, size_t buffer_size) {
  const char* name = "Unknown";
  switch (tag) {
#define ET_INTERNAL_TAG_NAME(_name) \
  case Tag::_name:                  \
    name = #_name;                  \
    break;
    EXECUTORCH_FORALL_TAGS(ET_INTERNAL_TAG_NAME)
#undef ET_INTERNAL_TAG_NAME
  }
  const size_t length = std::strlen(name);
  if (buffer != nullptr && buffer_size > 0) {
    const size_t n = length < buffer_size - 1 ? length : buffer_size - 1;
    std::memcpy(buffer, name, n);
    buffer[n] = '\0';
  }
  return length;
}

}  // namespace runtime
}  // namespace executorch
