/*
 * EValue: the tagged value the runtime passes between instructions, kernels
 * and the caller (None, Int, Double, Bool, String, Tensor and the lists).
 *
 * An EValue is small: lists and strings are held by pointer to storage that
 * the method (or the caller) owns; the EValue only refers to it.
 *
 * Accessors: isX() tells the kind; toX() returns it and treats a wrong kind
 * as a programming error (it aborts, like upstream), so code handling values
 * that come from a program should check isX() first or use tryToX(), which
 * returns Error::InvalidType instead.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {

struct EValue;

/*
 * A list whose elements live in other EValues (IntList items may be symbolic
 * ints that kernels rewrite; tensor lists follow MoveCalls). get() re-reads
 * every element into `unwrapped_vals` and returns a view of it.
 */
template <typename T>
class BoxedEvalueList {
 public:
  BoxedEvalueList() = default;

  /*
   * `wrapped_vals` and `unwrapped_vals` both hold `size` entries and must
   * outlive the list. unwrapped_vals is scratch that get() overwrites.
   */
  BoxedEvalueList(EValue** wrapped_vals, T* unwrapped_vals, int size)
      : wrapped_vals_(wrapped_vals, size < 0 ? 0 : static_cast<size_t>(size)),
        unwrapped_vals_(unwrapped_vals) {}

  /*
   * The current elements. If an element has the wrong kind (which a loaded
   * program cannot cause), logs and returns an empty list instead of
   * aborting.
   */
  executorch::aten::ArrayRef<T> get() const;

  /* The current elements, or Error::InvalidType for a wrong-kind element. */
  Result<executorch::aten::ArrayRef<T>> tryGet() const;

 private:
  Span<EValue*> wrapped_vals_;
  mutable T* unwrapped_vals_ = nullptr;
};

/* Optional-tensor lists: a null entry or a None EValue means "no tensor". */
template <>
ET_API executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>
BoxedEvalueList<std::optional<executorch::aten::Tensor>>::get() const;

template <>
ET_API
    Result<executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>>
    BoxedEvalueList<std::optional<executorch::aten::Tensor>>::tryGet() const;

namespace internal {

// to<T>() on an lvalue returns references for Tensor, values otherwise.
template <typename T>
struct evalue_to_const_ref_overload_return {
  using type = T;
};
template <>
struct evalue_to_const_ref_overload_return<executorch::aten::Tensor> {
  using type = const executorch::aten::Tensor&;
};
template <typename T>
struct evalue_to_ref_overload_return {
  using type = T;
};
template <>
struct evalue_to_ref_overload_return<executorch::aten::Tensor> {
  using type = executorch::aten::Tensor&;
};

}  // namespace internal

struct EValue {
  union Payload {
    // Everything except Tensor; trivially copyable, so copied as a whole.
    union TriviallyCopyablePayload {
      TriviallyCopyablePayload() : as_int(0) {}
      int64_t as_int;
      double as_double;
      bool as_bool;
      executorch::aten::ArrayRef<char>* as_string_ptr;
      executorch::aten::ArrayRef<double>* as_double_list_ptr;
      executorch::aten::ArrayRef<bool>* as_bool_list_ptr;
      BoxedEvalueList<int64_t>* as_int_list_ptr;
      BoxedEvalueList<executorch::aten::Tensor>* as_tensor_list_ptr;
      BoxedEvalueList<std::optional<executorch::aten::Tensor>>*
          as_list_optional_tensor_ptr;
    } copyable_union;

    // Tensor has no default constructor, so it cannot live in the union
    // above; it is constructed in place when the tag says Tensor.
    executorch::aten::Tensor as_tensor;

    Payload() {}
    ~Payload() {}
  };

  Payload payload;
  Tag tag;

  // --- construction -------------------------------------------------------

  /* None. */
  EValue() : tag(Tag::None) {
    payload.copyable_union.as_int = 0;
  }

  EValue(const EValue& rhs) : EValue(rhs.payload, rhs.tag) {}

  EValue(EValue&& rhs) noexcept : EValue(rhs.payload, rhs.tag) {}

  EValue& operator=(EValue&& rhs) & noexcept {
    if (&rhs != this) {
      destroy();
      tag = rhs.tag;
      copy_payload(rhs.payload);
    }
    return *this;
  }

  EValue& operator=(const EValue& rhs) & {
    if (&rhs != this) {
      destroy();
      tag = rhs.tag;
      copy_payload(rhs.payload);
    }
    return *this;
  }

  ~EValue() {
    destroy();
  }

  /* implicit */ EValue(int64_t i) : tag(Tag::Int) {
    payload.copyable_union.as_int = i;
  }

  /* implicit */ EValue(double d) : tag(Tag::Double) {
    payload.copyable_union.as_double = d;
  }

  /* implicit */ EValue(bool b) : tag(Tag::Bool) {
    payload.copyable_union.as_bool = b;
  }

  /* implicit */ EValue(executorch::aten::Scalar s) {
    if (s.isIntegral(false)) {
      tag = Tag::Int;
      payload.copyable_union.as_int = s.to<int64_t>();
    } else if (s.isFloatingPoint()) {
      tag = Tag::Double;
      payload.copyable_union.as_double = s.to<double>();
    } else {
      tag = Tag::Bool;
      payload.copyable_union.as_bool = s.to<bool>();
    }
  }

  /* implicit */ EValue(executorch::aten::Tensor t) : tag(Tag::Tensor) {
    new (&payload.as_tensor) executorch::aten::Tensor(t);
  }

  /*
   * From anything that dereferences to something an EValue can hold, e.g. a
   * std::shared_ptr<Tensor> (TensorPtr). A null pointer gives None.
   */
  template <
      typename T,
      typename = typename std::enable_if<std::is_convertible<
          decltype(*std::forward<T>(std::declval<T>())),
          EValue>::value>::type>
  /* implicit */ EValue(T&& value) : tag(Tag::None) {
    payload.copyable_union.as_int = 0;
    if (value == nullptr) {
      ET_LOG(Error, "EValue constructed from a null pointer; using None");
      return;
    }
    EValue converted(*std::forward<T>(value));
    tag = converted.tag;
    copy_payload(converted.payload);
  }

  /* Raw pointers would silently become bool; refuse them. */
  template <typename T>
  explicit EValue(T* value) = delete;

  /* String: a (pointer, length) view owned elsewhere. */
  explicit EValue(executorch::aten::ArrayRef<char>* s) : tag(Tag::String) {
    payload.copyable_union.as_string_ptr = s;
  }

  explicit EValue(BoxedEvalueList<int64_t>* i) : tag(Tag::ListInt) {
    payload.copyable_union.as_int_list_ptr = i;
  }

  explicit EValue(executorch::aten::ArrayRef<bool>* b) : tag(Tag::ListBool) {
    payload.copyable_union.as_bool_list_ptr = b;
  }

  explicit EValue(executorch::aten::ArrayRef<double>* d)
      : tag(Tag::ListDouble) {
    payload.copyable_union.as_double_list_ptr = d;
  }

  explicit EValue(BoxedEvalueList<executorch::aten::Tensor>* t)
      : tag(Tag::ListTensor) {
    payload.copyable_union.as_tensor_list_ptr = t;
  }

  explicit EValue(BoxedEvalueList<std::optional<executorch::aten::Tensor>>* t)
      : tag(Tag::ListOptionalTensor) {
    payload.copyable_union.as_list_optional_tensor_ptr = t;
  }

  // --- queries ------------------------------------------------------------

  bool isNone() const {
    return tag == Tag::None;
  }
  bool isInt() const {
    return tag == Tag::Int;
  }
  bool isDouble() const {
    return tag == Tag::Double;
  }
  bool isBool() const {
    return tag == Tag::Bool;
  }
  bool isScalar() const {
    return tag == Tag::Int || tag == Tag::Double || tag == Tag::Bool;
  }
  bool isTensor() const {
    return tag == Tag::Tensor;
  }
  bool isString() const {
    return tag == Tag::String;
  }
  bool isIntList() const {
    return tag == Tag::ListInt;
  }
  bool isBoolList() const {
    return tag == Tag::ListBool;
  }
  bool isDoubleList() const {
    return tag == Tag::ListDouble;
  }
  bool isTensorList() const {
    return tag == Tag::ListTensor;
  }
  bool isListOptionalTensor() const {
    return tag == Tag::ListOptionalTensor;
  }

  // --- accessors (precondition: matching isX()) --------------------------

  int64_t toInt() const {
    ET_CHECK_MSG(isInt(), "EValue is not an int (tag %u)", tag_value());
    return payload.copyable_union.as_int;
  }

  double toDouble() const {
    ET_CHECK_MSG(isDouble(), "EValue is not a double (tag %u)", tag_value());
    return payload.copyable_union.as_double;
  }

  bool toBool() const {
    ET_CHECK_MSG(isBool(), "EValue is not a bool (tag %u)", tag_value());
    return payload.copyable_union.as_bool;
  }

  executorch::aten::Scalar toScalar() const {
    if (isDouble()) {
      return executorch::aten::Scalar(payload.copyable_union.as_double);
    }
    if (isInt()) {
      return executorch::aten::Scalar(payload.copyable_union.as_int);
    }
    ET_CHECK_MSG(isBool(), "EValue is not a Scalar (tag %u)", tag_value());
    return executorch::aten::Scalar(payload.copyable_union.as_bool);
  }

  executorch::aten::Tensor toTensor() && {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor (tag %u)", tag_value());
    return payload.as_tensor;
  }

  executorch::aten::Tensor& toTensor() & {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor (tag %u)", tag_value());
    return payload.as_tensor;
  }

  const executorch::aten::Tensor& toTensor() const& {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor (tag %u)", tag_value());
    return payload.as_tensor;
  }

  std::string_view toString() const {
    ET_CHECK_MSG(isString(), "EValue is not a String (tag %u)", tag_value());
    const auto* s = payload.copyable_union.as_string_ptr;
    ET_CHECK_MSG(s != nullptr, "EValue string has no storage");
    return std::string_view(s->data(), s->size());
  }

  executorch::aten::ArrayRef<int64_t> toIntList() const {
    ET_CHECK_MSG(
        isIntList(), "EValue is not an int list (tag %u)", tag_value());
    const auto* l = payload.copyable_union.as_int_list_ptr;
    ET_CHECK_MSG(l != nullptr, "EValue int list has no storage");
    return l->get();
  }

  executorch::aten::ArrayRef<bool> toBoolList() const {
    ET_CHECK_MSG(
        isBoolList(), "EValue is not a bool list (tag %u)", tag_value());
    const auto* l = payload.copyable_union.as_bool_list_ptr;
    ET_CHECK_MSG(l != nullptr, "EValue bool list has no storage");
    return *l;
  }

  executorch::aten::ArrayRef<double> toDoubleList() const {
    ET_CHECK_MSG(
        isDoubleList(), "EValue is not a double list (tag %u)", tag_value());
    const auto* l = payload.copyable_union.as_double_list_ptr;
    ET_CHECK_MSG(l != nullptr, "EValue double list has no storage");
    return *l;
  }

  executorch::aten::ArrayRef<executorch::aten::Tensor> toTensorList() const {
    ET_CHECK_MSG(
        isTensorList(), "EValue is not a tensor list (tag %u)", tag_value());
    const auto* l = payload.copyable_union.as_tensor_list_ptr;
    ET_CHECK_MSG(l != nullptr, "EValue tensor list has no storage");
    return l->get();
  }

  executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>
  toListOptionalTensor() const {
    ET_CHECK_MSG(
        isListOptionalTensor(),
        "EValue is not an optional tensor list (tag %u)",
        tag_value());
    const auto* l = payload.copyable_union.as_list_optional_tensor_ptr;
    ET_CHECK_MSG(l != nullptr, "EValue optional tensor list has no storage");
    return l->get();
  }

  /* Enum-valued arguments are serialized as Ints. */
  executorch::aten::ScalarType toScalarType() const {
    return static_cast<executorch::aten::ScalarType>(toInt());
  }
  executorch::aten::MemoryFormat toMemoryFormat() const {
    return static_cast<executorch::aten::MemoryFormat>(toInt());
  }
  executorch::aten::Layout toLayout() const {
    return static_cast<executorch::aten::Layout>(toInt());
  }
  executorch::aten::Device toDevice() const {
    return executorch::aten::Device(
        static_cast<executorch::aten::DeviceType>(toInt()), 0);
  }

  // --- checked accessors -------------------------------------------------

  Result<int64_t> tryToInt() const {
    if (!isInt()) {
      return Error::InvalidType;
    }
    return payload.copyable_union.as_int;
  }
  Result<double> tryToDouble() const {
    if (!isDouble()) {
      return Error::InvalidType;
    }
    return payload.copyable_union.as_double;
  }
  Result<bool> tryToBool() const {
    if (!isBool()) {
      return Error::InvalidType;
    }
    return payload.copyable_union.as_bool;
  }
  Result<executorch::aten::Scalar> tryToScalar() const {
    if (!isScalar()) {
      return Error::InvalidType;
    }
    return toScalar();
  }
  Result<executorch::aten::Tensor> tryToTensor() const {
    if (!isTensor()) {
      return Error::InvalidType;
    }
    return payload.as_tensor;
  }
  Result<std::string_view> tryToString() const {
    if (!isString() || payload.copyable_union.as_string_ptr == nullptr) {
      return Error::InvalidType;
    }
    return toString();
  }
  Result<executorch::aten::ArrayRef<int64_t>> tryToIntList() const {
    if (!isIntList() || payload.copyable_union.as_int_list_ptr == nullptr) {
      return Error::InvalidType;
    }
    return payload.copyable_union.as_int_list_ptr->tryGet();
  }
  Result<executorch::aten::ArrayRef<bool>> tryToBoolList() const {
    if (!isBoolList() || payload.copyable_union.as_bool_list_ptr == nullptr) {
      return Error::InvalidType;
    }
    return *payload.copyable_union.as_bool_list_ptr;
  }
  Result<executorch::aten::ArrayRef<double>> tryToDoubleList() const {
    if (!isDoubleList() ||
        payload.copyable_union.as_double_list_ptr == nullptr) {
      return Error::InvalidType;
    }
    return *payload.copyable_union.as_double_list_ptr;
  }
  Result<executorch::aten::ArrayRef<executorch::aten::Tensor>> tryToTensorList()
      const {
    if (!isTensorList() ||
        payload.copyable_union.as_tensor_list_ptr == nullptr) {
      return Error::InvalidType;
    }
    return payload.copyable_union.as_tensor_list_ptr->tryGet();
  }
  Result<executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>>
  tryToListOptionalTensor() const {
    if (!isListOptionalTensor() ||
        payload.copyable_union.as_list_optional_tensor_ptr == nullptr) {
      return Error::InvalidType;
    }
    return payload.copyable_union.as_list_optional_tensor_ptr->tryGet();
  }
  Result<executorch::aten::ScalarType> tryToScalarType() const {
    if (!isInt()) {
      return Error::InvalidType;
    }
    return static_cast<executorch::aten::ScalarType>(
        payload.copyable_union.as_int);
  }
  Result<executorch::aten::MemoryFormat> tryToMemoryFormat() const {
    if (!isInt()) {
      return Error::InvalidType;
    }
    return static_cast<executorch::aten::MemoryFormat>(
        payload.copyable_union.as_int);
  }
  Result<executorch::aten::Layout> tryToLayout() const {
    if (!isInt()) {
      return Error::InvalidType;
    }
    return static_cast<executorch::aten::Layout>(payload.copyable_union.as_int);
  }
  Result<executorch::aten::Device> tryToDevice() const {
    if (!isInt()) {
      return Error::InvalidType;
    }
    return toDevice();
  }

  // --- generic access ----------------------------------------------------

  /* to<T>(): toX() chosen by type, e.g. to<int64_t>(), to<Tensor>(). */
  template <typename T>
  T to() &&;
  template <typename T>
  typename internal::evalue_to_const_ref_overload_return<T>::type to() const&;
  template <typename T>
  typename internal::evalue_to_ref_overload_return<T>::type to() &;

  /* tryTo<T>(): like to<T>() but Error::InvalidType on a kind mismatch. */
  template <typename T>
  Result<T> tryTo() const;

  /* None becomes nullopt; anything else is to<T>(). */
  template <typename T>
  std::optional<T> toOptional() const {
    if (isNone()) {
      return std::nullopt;
    }
    return this->to<T>();
  }

  template <typename T>
  Result<std::optional<T>> tryToOptional() const {
    if (isNone()) {
      return std::optional<T>(std::nullopt);
    }
    Result<T> r = tryTo<T>();
    if (!r.ok()) {
      return r.error();
    }
    return std::optional<T>(std::move(r.get()));
  }

 private:
  EValue(const Payload& p, Tag t) : tag(t) {
    copy_payload(p);
  }

  void copy_payload(const Payload& p) {
    if (tag == Tag::Tensor) {
      new (&payload.as_tensor) executorch::aten::Tensor(p.as_tensor);
    } else {
      payload.copyable_union = p.copyable_union;
    }
  }

  void destroy() {
    // The portable Tensor is a trivially destructible handle; only the tag
    // needs resetting so a destroyed value never looks like a tensor.
    tag = Tag::None;
  }

  unsigned tag_value() const {
    return static_cast<unsigned>(tag);
  }
};

// to<T>() specializations: one line per supported T.
#define ET_INTERNAL_EVALUE_DEFINE_TO(T, method_name, try_method_name)        \
  template <>                                                                \
  inline T EValue::to<T>()&& {                                               \
    return static_cast<T>(std::move(*this).method_name());                   \
  }                                                                          \
  template <>                                                                \
  inline internal::evalue_to_const_ref_overload_return<T>::type              \
  EValue::to<T>() const& {                                                   \
    typedef internal::evalue_to_const_ref_overload_return<T>::type           \
        return_type;                                                         \
    return static_cast<return_type>(this->method_name());                    \
  }                                                                          \
  template <>                                                                \
  inline internal::evalue_to_ref_overload_return<T>::type EValue::to<T>()& { \
    typedef internal::evalue_to_ref_overload_return<T>::type return_type;    \
    return static_cast<return_type>(this->method_name());                    \
  }                                                                          \
  template <>                                                                \
  inline Result<T> EValue::tryTo<T>() const {                                \
    return this->try_method_name();                                          \
  }

ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::Scalar, toScalar, tryToScalar)
ET_INTERNAL_EVALUE_DEFINE_TO(int64_t, toInt, tryToInt)
ET_INTERNAL_EVALUE_DEFINE_TO(bool, toBool, tryToBool)
ET_INTERNAL_EVALUE_DEFINE_TO(double, toDouble, tryToDouble)
ET_INTERNAL_EVALUE_DEFINE_TO(std::string_view, toString, tryToString)
ET_INTERNAL_EVALUE_DEFINE_TO(
    executorch::aten::ScalarType, toScalarType, tryToScalarType)
ET_INTERNAL_EVALUE_DEFINE_TO(
    executorch::aten::MemoryFormat, toMemoryFormat, tryToMemoryFormat)
ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::Layout, toLayout, tryToLayout)
ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::Device, toDevice, tryToDevice)
ET_INTERNAL_EVALUE_DEFINE_TO(executorch::aten::Tensor, toTensor, tryToTensor)
ET_INTERNAL_EVALUE_DEFINE_TO(
    executorch::aten::ArrayRef<int64_t>, toIntList, tryToIntList)
ET_INTERNAL_EVALUE_DEFINE_TO(
    executorch::aten::ArrayRef<double>, toDoubleList, tryToDoubleList)
ET_INTERNAL_EVALUE_DEFINE_TO(
    executorch::aten::ArrayRef<bool>, toBoolList, tryToBoolList)
ET_INTERNAL_EVALUE_DEFINE_TO(
    executorch::aten::ArrayRef<executorch::aten::Tensor>,
    toTensorList,
    tryToTensorList)
ET_INTERNAL_EVALUE_DEFINE_TO(
    executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>>,
    toListOptionalTensor,
    tryToListOptionalTensor)

// Optional arguments: to<std::optional<X>>() is toOptional<X>().
#define ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(T)                            \
  template <>                                                               \
  inline std::optional<T> EValue::to<std::optional<T>>()&& {                \
    return this->toOptional<T>();                                           \
  }                                                                         \
  template <>                                                               \
  inline std::optional<T> EValue::to<std::optional<T>>() const& {           \
    return this->toOptional<T>();                                           \
  }                                                                         \
  template <>                                                               \
  inline std::optional<T> EValue::to<std::optional<T>>()& {                 \
    return this->toOptional<T>();                                           \
  }                                                                         \
  template <>                                                               \
  inline Result<std::optional<T>> EValue::tryTo<std::optional<T>>() const { \
    return this->tryToOptional<T>();                                        \
  }

ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(executorch::aten::Scalar)
ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(int64_t)
ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(bool)
ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(double)
ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(std::string_view)
ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(executorch::aten::ScalarType)
ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(executorch::aten::MemoryFormat)
ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(executorch::aten::Layout)
ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(executorch::aten::Device)
ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(executorch::aten::Tensor)
ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(executorch::aten::ArrayRef<int64_t>)
ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(executorch::aten::ArrayRef<double>)
ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL(executorch::aten::ArrayRef<bool>)

#undef ET_INTERNAL_EVALUE_DEFINE_TO
#undef ET_INTERNAL_EVALUE_DEFINE_TO_OPTIONAL

// BoxedEvalueList<T> members for Int and Tensor lists.
template <typename T>
Result<executorch::aten::ArrayRef<T>> BoxedEvalueList<T>::tryGet() const {
  if (wrapped_vals_.size() > 0 &&
      (wrapped_vals_.data() == nullptr || unwrapped_vals_ == nullptr)) {
    return Error::InvalidState;
  }
  for (size_t i = 0; i < wrapped_vals_.size(); ++i) {
    const EValue* v = wrapped_vals_[i];
    if (v == nullptr) {
      return Error::InvalidType;
    }
    Result<T> r = v->template tryTo<T>();
    if (!r.ok()) {
      return Error::InvalidType;
    }
    // Scratch may never have held a T (Tensor has no default state), so
    // construct rather than assign; every T used here is trivially
    // destructible, so nothing needs tearing down first.
    new (&unwrapped_vals_[i]) T(r.get());
  }
  return executorch::aten::ArrayRef<T>(unwrapped_vals_, wrapped_vals_.size());
}

template <typename T>
executorch::aten::ArrayRef<T> BoxedEvalueList<T>::get() const {
  Result<executorch::aten::ArrayRef<T>> r = tryGet();
  if (!r.ok()) {
    ET_LOG(Error, "Boxed list has an element of the wrong kind");
    return executorch::aten::ArrayRef<T>();
  }
  return r.get();
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::BoxedEvalueList;
using ::executorch::runtime::EValue;
}  // namespace executor
}  // namespace torch
