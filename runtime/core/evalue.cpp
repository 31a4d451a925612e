/*
 * Out-of-line BoxedEvalueList members for optional-tensor lists (the other
 * element types are handled inline in evalue.h).
 */
#include <executorch/runtime/core/evalue.h>

namespace executorch {
namespace runtime {

using OptionalTensor = std::optional<executorch::aten::Tensor>;

template <>
Result<executorch::aten::ArrayRef<OptionalTensor>>
BoxedEvalueList<OptionalTensor>::tryGet() const {
  if (wrapped_vals_.size() > 0 &&
      (wrapped_vals_.data() == nullptr || unwrapped_vals_ == nullptr)) {
    return Error::InvalidState;
  }
  for (size_t i = 0; i < wrapped_vals_.size(); ++i) {
    const EValue* v = wrapped_vals_[i];
    // A missing entry (serialized as -1) and a None value both mean "absent".
    if (v == nullptr || v->isNone()) {
      new (&unwrapped_vals_[i]) OptionalTensor(std::nullopt);
    } else if (v->isTensor()) {
      new (&unwrapped_vals_[i]) OptionalTensor(v->toTensor());
    } else {
      return Error::InvalidType;
    }
  }
  return executorch::aten::ArrayRef<OptionalTensor>(
      unwrapped_vals_, wrapped_vals_.size());
}

template <>
executorch::aten::ArrayRef<OptionalTensor>
BoxedEvalueList<OptionalTensor>::get() const {
  Result<executorch::aten::ArrayRef<OptionalTensor>> r = tryGet();
  if (!r.ok()) {
    ET_LOG(Error, "Optional tensor list has an element of the wrong kind");
    return executorch::aten::ArrayRef<OptionalTensor>();
  }
  return r.get();
}

}  // namespace runtime
}  // namespace executorch
