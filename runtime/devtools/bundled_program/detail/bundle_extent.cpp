#include <executorch/devtools/bundled_program/detail/bundle_extent.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <executorch/devtools/bundled_program/detail/bundle_validation.h>
#include <executorch/runtime/platform/log.h>

#include <executorch_schema/bundled_program_schema_generated.h>

namespace executorch {
namespace bundled_program {
namespace detail {
namespace {

namespace fb = ::bundled_program_flatbuffer;
using ::executorch::runtime::Error;
using ::executorch::runtime::Result;
using flatbuffers::soffset_t;
using flatbuffers::uoffset_t;
using flatbuffers::voffset_t;

// A flatbuffer is smaller than this (the Verifier refuses larger sizes), so
// an object reaching past it cannot belong to a bundle.
constexpr size_t kMaxBufferSize = FLATBUFFERS_MAX_BUFFER_SIZE;
// The Verifier's default limit on tables (Verifier::Options::max_tables):
// also bounds the walk on a bundle whose vectors point at shared tables.
constexpr size_t kMaxTables = 1000000;

// A table: where it starts and its vtable.
struct TableRef {
  size_t at = 0;
  size_t vtable = 0;
  voffset_t vtable_size = 0;
};

// Walks the BundledProgram schema the way its generated Verify() functions
// do, but instead of checking each object against a known length it records
// how far the objects reach. Offsets are kept as numbers relative to the
// start: no pointer is formed past what was read.
class ExtentWalker {
 public:
  explicit ExtentWalker(const uint8_t* base) : base_(base) {}

  bool bundle() {
    // The root offset and the identifier.
    if (!cover(0, 2 * sizeof(uoffset_t))) {
      return false;
    }
    const uoffset_t root = read<uoffset_t>(0);
    if (root == 0 || root > static_cast<uoffset_t>(INT32_MAX)) {
      return false;
    }
    TableRef t;
    size_t at = 0;
    return open(root, &t) &&
           scalar(t, fb::BundledProgram::VT_VERSION, sizeof(uint32_t)) &&
           offset(t, fb::BundledProgram::VT_METHOD_TEST_SUITES, &at) &&
           tables(at, &ExtentWalker::suite) &&
           offset(t, fb::BundledProgram::VT_PROGRAM, &at) && vector(at, 1);
  }

  size_t end() const {
    return end_;
  }

 private:
  bool suite(size_t table) {
    TableRef t;
    size_t at = 0;
    return open(table, &t) &&
           offset(t, fb::BundledMethodTestSuite::VT_METHOD_NAME, &at) &&
           string(at) &&
           offset(t, fb::BundledMethodTestSuite::VT_TEST_CASES, &at) &&
           tables(at, &ExtentWalker::test_case);
  }

  bool test_case(size_t table) {
    TableRef t;
    size_t at = 0;
    return open(table, &t) &&
           offset(t, fb::BundledMethodTestCase::VT_INPUTS, &at) &&
           tables(at, &ExtentWalker::value) &&
           offset(t, fb::BundledMethodTestCase::VT_EXPECTED_OUTPUTS, &at) &&
           tables(at, &ExtentWalker::value);
  }

  bool value(size_t table) {
    TableRef t;
    size_t at = 0;
    if (!open(table, &t) ||
        !scalar(t, fb::Value::VT_VAL_TYPE, sizeof(uint8_t)) ||
        !offset(t, fb::Value::VT_VAL, &at)) {
      return false;
    }
    if (at == 0) {
      return true;
    }
    const voffset_t type_field = field(t, fb::Value::VT_VAL_TYPE);
    const auto type = static_cast<fb::ValueUnion>(
        type_field == 0 ? 0 : read<uint8_t>(t.at + type_field));
    // As the Verifier: the table of a known type is followed, an unknown
    // type's is not (verify_bundle() refuses unknown types).
    TableRef v;
    switch (type) {
      case fb::ValueUnion::Tensor:
        return tensor(at);
      case fb::ValueUnion::Int:
        return open(at, &v) && scalar(v, fb::Int::VT_INT_VAL, sizeof(int64_t));
      case fb::ValueUnion::Bool:
        return open(at, &v) &&
               scalar(v, fb::Bool::VT_BOOL_VAL, sizeof(uint8_t));
      case fb::ValueUnion::Double:
        return open(at, &v) &&
               scalar(v, fb::Double::VT_DOUBLE_VAL, sizeof(double));
      default:
        return true;
    }
  }

  bool tensor(size_t table) {
    TableRef t;
    size_t at = 0;
    return open(table, &t) &&
           scalar(t, fb::Tensor::VT_SCALAR_TYPE, sizeof(int8_t)) &&
           offset(t, fb::Tensor::VT_SIZES, &at) &&
           vector(at, sizeof(int32_t)) && offset(t, fb::Tensor::VT_DATA, &at) &&
           vector(at, 1) && offset(t, fb::Tensor::VT_DIM_ORDER, &at) &&
           vector(at, 1);
  }

  // [at, at + len) belongs to the bundle; false if it reaches past the
  // largest flatbuffer.
  bool cover(size_t at, size_t len) {
    if (at >= kMaxBufferSize || len >= kMaxBufferSize - at) {
      return false;
    }
    end_ = std::max(end_, at + len);
    return true;
  }

  // Unaligned-safe: nothing here has been checked for alignment yet.
  template <typename T>
  T read(size_t at) const {
    T v;
    std::memcpy(&v, base_ + at, sizeof(T));
    return v;
  }

  // The table at `at`: its offset to the vtable and the vtable itself.
  bool open(size_t at, TableRef* t) {
    if (++tables_ > kMaxTables || !cover(at, sizeof(soffset_t))) {
      return false;
    }
    // The vtable lies at `at` minus a signed offset.
    const int64_t vtable =
        static_cast<int64_t>(at) - static_cast<int64_t>(read<soffset_t>(at));
    if (vtable < 0 || !cover(static_cast<size_t>(vtable), sizeof(voffset_t))) {
      return false;
    }
    t->at = at;
    t->vtable = static_cast<size_t>(vtable);
    t->vtable_size = read<voffset_t>(t->vtable);
    return cover(t->vtable, t->vtable_size);
  }

  // Where field `id` lies in the table (0: absent), as flatbuffers'
  // GetOptionalFieldOffset; only vtable entries inside the vtable are read.
  voffset_t field(const TableRef& t, voffset_t id) const {
    return size_t{id} + sizeof(voffset_t) <= t.vtable_size
               ? read<voffset_t>(t.vtable + id)
               : 0;
  }

  bool scalar(const TableRef& t, voffset_t id, size_t size) {
    const voffset_t f = field(t, id);
    return f == 0 || cover(t.at + f, size);
  }

  // The object an offset field points to in `*target` (0: the field is
  // absent); as the Verifier's VerifyOffset, the offset is non-zero and
  // below 2^31 and at least one byte of its target exists.
  bool offset(const TableRef& t, voffset_t id, size_t* target) {
    *target = 0;
    const voffset_t f = field(t, id);
    if (f == 0) {
      return true;
    }
    const size_t at = t.at + f;
    if (!cover(at, sizeof(uoffset_t))) {
      return false;
    }
    const uoffset_t o = read<uoffset_t>(at);
    if (o == 0 || o > static_cast<uoffset_t>(INT32_MAX)) {
      return false;
    }
    *target = at + o;
    return cover(*target, 1);
  }

  // A vector of `n` elements of `elem_size` bytes at `at` (0: absent).
  bool vector(size_t at, size_t elem_size, uoffset_t* n = nullptr) {
    if (at == 0) {
      if (n != nullptr) {
        *n = 0;
      }
      return true;
    }
    if (!cover(at, sizeof(uoffset_t))) {
      return false;
    }
    const uoffset_t count = read<uoffset_t>(at);
    if (count >= kMaxBufferSize / elem_size) {
      return false;
    }
    if (n != nullptr) {
      *n = count;
    }
    return cover(at + sizeof(uoffset_t), size_t{count} * elem_size);
  }

  // A string: its bytes and the terminating zero.
  bool string(size_t at) {
    uoffset_t n = 0;
    return vector(at, 1, &n) &&
           (at == 0 || cover(at + sizeof(uoffset_t) + n, 1));
  }

  // A vector of tables, each walked by `walk`.
  bool tables(size_t at, bool (ExtentWalker::*walk)(size_t)) {
    uoffset_t n = 0;
    if (!vector(at, sizeof(uoffset_t), &n)) {
      return false;
    }
    for (uoffset_t i = 0; i < n; ++i) {
      // Each element is an offset from where it is stored.
      const size_t slot =
          at + sizeof(uoffset_t) + size_t{i} * sizeof(uoffset_t);
      if (!(this->*walk)(slot + read<uoffset_t>(slot))) {
        return false;
      }
    }
    return true;
  }

  const uint8_t* base_;
  size_t end_ = 0;
  size_t tables_ = 0;
};

}  // namespace

Result<size_t> bundle_extent(const void* data) {
  ET_CHECK_OR_RETURN_ERROR(
      data != nullptr, InvalidArgument, "bundled program: null buffer");
  // The identifier first: a buffer that is not a bundle is not walked.
  if (!has_bundle_identifier(data, kBundleHeaderSize)) {
    // verify_bundle() refuses it (NotSupported) with the identifier it found.
    return verify_bundle(data, kBundleHeaderSize).error();
  }
  ExtentWalker walker(static_cast<const uint8_t*>(data));
  ET_CHECK_OR_RETURN_ERROR(
      walker.bundle(),
      InvalidProgram,
      "bundled program at %p: its structure reaches past the largest "
      "flatbuffer (%zu bytes) or holds more than %zu tables",
      data,
      kMaxBufferSize,
      kMaxTables);
  return walker.end();
}

}  // namespace detail
}  // namespace bundled_program
}  // namespace executorch
