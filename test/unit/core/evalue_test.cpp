// EValue: every tag, to<T>(), toOptional<T>(), boxed lists and smart pointers.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include <executorch/runtime/core/evalue.h>

using executorch::aten::ArrayRef;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Tag;

TEST(TagTest, ValuesAndNames) {
  EXPECT_EQ(static_cast<int>(Tag::None), 0);
  EXPECT_EQ(static_cast<int>(Tag::Tensor), 1);
  EXPECT_EQ(static_cast<int>(Tag::ListScalar), 10);
  EXPECT_EQ(static_cast<int>(Tag::ListOptionalTensor), 11);
  EXPECT_STREQ(executorch::runtime::tag_to_string(Tag::ListInt), "ListInt");
  char buf[executorch::runtime::kTagNameBufferSize];
  EXPECT_EQ(executorch::runtime::tag_to_string(Tag::ListOptionalTensor, buf, sizeof(buf)), 18u);
  EXPECT_STREQ(buf, "ListOptionalTensor");
  char small[4];
  EXPECT_EQ(executorch::runtime::tag_to_string(Tag::Tensor, small, sizeof(small)), 6u);
  EXPECT_STREQ(small, "Ten");
}

TEST(EValueTest, NoneAndScalars) {
  EValue none;
  EXPECT_TRUE(none.isNone());
  EXPECT_EQ(none.tag, Tag::None);

  EValue i(static_cast<int64_t>(7));
  EXPECT_TRUE(i.isInt());
  EXPECT_TRUE(i.isScalar());
  EXPECT_EQ(i.toInt(), 7);
  EXPECT_EQ(i.to<int64_t>(), 7);
  EXPECT_EQ(i.toScalar().to<int64_t>(), 7);

  EValue d(2.5);
  EXPECT_TRUE(d.isDouble());
  EXPECT_EQ(d.to<double>(), 2.5);

  EValue b(true);
  EXPECT_TRUE(b.isBool());
  EXPECT_TRUE(b.to<bool>());

  EValue from_scalar(executorch::aten::Scalar(3.0));
  EXPECT_TRUE(from_scalar.isDouble());
  EValue from_int_scalar(executorch::aten::Scalar(4));
  EXPECT_TRUE(from_int_scalar.isInt());
  EValue from_bool_scalar(executorch::aten::Scalar(false));
  EXPECT_TRUE(from_bool_scalar.isBool());

  EValue st(static_cast<int64_t>(ScalarType::Float));
  EXPECT_EQ(st.to<ScalarType>(), ScalarType::Float);
  EValue mf(static_cast<int64_t>(1));
  EXPECT_EQ(mf.to<executorch::aten::MemoryFormat>(), executorch::aten::MemoryFormat::Preserve);
  EXPECT_EQ(EValue(static_cast<int64_t>(0)).toLayout(), executorch::aten::Layout::Strided);
}

TEST(EValueTest, TryToReportsInvalidType) {
  EValue i(static_cast<int64_t>(1));
  EXPECT_EQ(i.tryToDouble().error(), Error::InvalidType);
  EXPECT_EQ(i.tryTo<bool>().error(), Error::InvalidType);
  EXPECT_EQ(i.tryTo<Tensor>().error(), Error::InvalidType);
  EXPECT_EQ(i.tryToInt().get(), 1);
  EXPECT_EQ(EValue().tryToOptional<int64_t>().get(), std::nullopt);
}

TEST(EValueTest, TensorAndCopies) {
  int32_t sizes[] = {2};
  float data[] = {1.0f, 2.0f};
  TensorImpl impl(ScalarType::Float, 1, sizes, data);
  EValue e{Tensor(&impl)};
  EXPECT_TRUE(e.isTensor());
  EXPECT_EQ(e.toTensor().numel(), 2);
  Tensor& ref = e.to<Tensor>();
  EXPECT_EQ(ref.unsafeGetTensorImpl(), &impl);
  const EValue& ce = e;
  EXPECT_EQ(ce.to<Tensor>().const_data_ptr<float>()[1], 2.0f);
  Tensor moved = EValue(Tensor(&impl)).to<Tensor>();
  EXPECT_EQ(moved.numel(), 2);

  EValue copy(e);
  EXPECT_TRUE(copy.isTensor());
  EValue assigned;
  assigned = copy;
  EXPECT_EQ(assigned.toTensor().unsafeGetTensorImpl(), &impl);
  EValue moved_ev(std::move(assigned));
  EXPECT_TRUE(moved_ev.isTensor());
  moved_ev = EValue(static_cast<int64_t>(3));
  EXPECT_TRUE(moved_ev.isInt());
}

TEST(EValueTest, SmartPointerConstructor) {
  int32_t sizes[] = {3};
  TensorImpl impl(ScalarType::Int, 1, sizes);
  auto ptr = std::make_shared<Tensor>(&impl);
  EValue e = ptr;
  EXPECT_TRUE(e.isTensor());
  std::vector<EValue> values{ptr, ptr};
  EXPECT_EQ(values.size(), 2u);
  EXPECT_EQ(values[1].toTensor().numel(), 3);
  std::shared_ptr<Tensor> null_ptr;
  EValue none_from_null = null_ptr;
  EXPECT_TRUE(none_from_null.isNone());
  static_assert(!std::is_constructible<EValue, const char*>::value, "raw pointers rejected");
  static_assert(!std::is_constructible<EValue, Tensor*>::value, "raw pointers rejected");
}

TEST(EValueTest, StringAndInlineLists) {
  const char text[] = "hello";
  ArrayRef<char> str(text, 5);
  EValue s(&str);
  EXPECT_TRUE(s.isString());
  EXPECT_EQ(s.to<std::string_view>(), "hello");

  const bool bools[] = {true, false};
  ArrayRef<bool> bl(bools, 2);
  EValue b(&bl);
  EXPECT_TRUE(b.isBoolList());
  EXPECT_EQ(b.to<ArrayRef<bool>>().size(), 2u);

  const double doubles[] = {1.0, 2.0, 3.0};
  ArrayRef<double> dl(doubles, 3);
  EValue d(&dl);
  EXPECT_TRUE(d.isDoubleList());
  EXPECT_EQ(d.toDoubleList()[2], 3.0);
}

TEST(EValueTest, BoxedIntListRereadsElements) {
  EValue a(static_cast<int64_t>(1));
  EValue b(static_cast<int64_t>(2));
  EValue* wrapped[] = {&a, &b};
  int64_t scratch[2];
  BoxedEvalueList<int64_t> list(wrapped, scratch, 2);
  EValue l(&list);
  EXPECT_TRUE(l.isIntList());
  EXPECT_EQ(l.toIntList()[1], 2);
  b = EValue(static_cast<int64_t>(20));  // a kernel writes a sym-int
  EXPECT_EQ(l.to<ArrayRef<int64_t>>()[1], 20);

  b = EValue(1.5);  // wrong kind: an error, not an abort
  EXPECT_EQ(list.tryGet().error(), Error::InvalidType);
  EXPECT_EQ(list.get().size(), 0u);
  EXPECT_EQ(l.tryToIntList().error(), Error::InvalidType);
}

TEST(EValueTest, TensorListsAndOptionalTensorList) {
  int32_t sizes[] = {1};
  TensorImpl impl1(ScalarType::Float, 1, sizes);
  TensorImpl impl2(ScalarType::Int, 1, sizes);
  EValue t1{Tensor(&impl1)};
  EValue t2{Tensor(&impl2)};
  EValue none;

  EValue* wrapped[] = {&t1, &t2};
  alignas(Tensor) unsigned char raw[sizeof(Tensor) * 2];
  BoxedEvalueList<Tensor> tl(wrapped, reinterpret_cast<Tensor*>(raw), 2);
  EValue l(&tl);
  EXPECT_TRUE(l.isTensorList());
  EXPECT_EQ(l.toTensorList()[1].scalar_type(), ScalarType::Int);

  EValue* owrapped[] = {&t1, nullptr, &none};
  std::optional<Tensor> oscratch[3];
  BoxedEvalueList<std::optional<Tensor>> otl(owrapped, oscratch, 3);
  EValue ol(&otl);
  EXPECT_TRUE(ol.isListOptionalTensor());
  auto items = ol.to<ArrayRef<std::optional<Tensor>>>();
  ASSERT_EQ(items.size(), 3u);
  EXPECT_TRUE(items[0].has_value());
  EXPECT_FALSE(items[1].has_value());
  EXPECT_FALSE(items[2].has_value());

  EValue bad(static_cast<int64_t>(1));
  EValue* bad_wrapped[] = {&bad};
  std::optional<Tensor> bad_scratch[1];
  BoxedEvalueList<std::optional<Tensor>> bad_list(bad_wrapped, bad_scratch, 1);
  EXPECT_EQ(bad_list.tryGet().error(), Error::InvalidType);
}

TEST(EValueTest, ToOptional) {
  EValue none;
  EXPECT_FALSE(none.toOptional<int64_t>().has_value());
  EXPECT_FALSE(none.to<std::optional<double>>().has_value());
  EValue i(static_cast<int64_t>(9));
  EXPECT_EQ(i.toOptional<int64_t>().value(), 9);
  EXPECT_EQ(i.to<std::optional<int64_t>>().value(), 9);
  int32_t sizes[] = {1};
  TensorImpl impl(ScalarType::Float, 1, sizes);
  EValue t{Tensor(&impl)};
  EXPECT_TRUE(t.toOptional<Tensor>().has_value());
}

TEST(EValueDeathTest, WrongAccessorAborts) {
  EValue i(static_cast<int64_t>(1));
  EXPECT_DEATH((void)i.toDouble(), "");
}
