// Consumer program in the style of the upstream Tensor extension
// documentation (extension-tensor.md). Needs no model.
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>

#include <cstdio>
#include <vector>

using namespace executorch::aten;
using namespace executorch::extension;

#define CHECK(cond)                                                           \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stderr, "check failed at line %d: %s\n", __LINE__, #cond); \
      return 1;                                                               \
    }                                                                         \
  } while (0)

int main() {
  // Plain TensorImpl/Tensor, the low-level way.
  SizesType sizes[] = {2, 3};
  DimOrderType dim_order[] = {0, 1};
  StridesType strides[] = {3, 1};
  float data[] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
  TensorImpl impl(ScalarType::Float, 2, sizes, data, dim_order, strides);
  Tensor raw(&impl);

  // TensorPtr over the same data, and every make_tensor_ptr form.
  auto t1 = make_tensor_ptr({2, 3}, data, {0, 1}, {3, 1}, ScalarType::Float,
                            TensorShapeDynamism::DYNAMIC_BOUND);
  auto t2 = make_tensor_ptr({2, 3}, data);
  auto t3 = make_tensor_ptr({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  auto t4 = make_tensor_ptr(std::vector<float>{1, 2, 3});
  auto t5 = make_tensor_ptr({2, 2}, {1.0f, 2.0f, 3.0f, 4.0f});
  auto t6 = make_tensor_ptr({1, 2, 3});
  auto t7 = make_tensor_ptr(3.14f);
  auto t8 = make_tensor_ptr({2}, std::vector<int32_t>{1, 2}, {}, {}, ScalarType::Double);
  auto t9 = make_tensor_ptr({2}, std::vector<uint8_t>(2 * sizeof(float)));
  auto t10 = make_tensor_ptr(raw);
  auto t11 = make_tensor_ptr(t3, {3, 2});
  CHECK(t1->numel() == 6 && t2->const_data_ptr<float>() == data);
  CHECK(t3->size(1) == 3 && t4->dim() == 1 && t5->numel() == 4);
  CHECK(t6->scalar_type() == ScalarType::Int && t7->dim() == 0);
  CHECK(t8->scalar_type() == ScalarType::Double);
  CHECK(t8->const_data_ptr<double>()[1] == 2.0);
  CHECK(t9->nbytes() == 8 && t10->const_data_ptr<float>() == data);
  CHECK(t11->size(0) == 3);

  auto c1 = clone_tensor_ptr(t3);
  auto c2 = clone_tensor_ptr(raw, ScalarType::Double);
  CHECK(c1->const_data_ptr() != t3->const_data_ptr());
  CHECK(c2->const_data_ptr<double>()[5] == 6.0);

  CHECK(resize_tensor_ptr(t3, {3, 2}) == executorch::runtime::Error::Ok);

  // from_blob / for_blob.
  auto b1 = from_blob(data, {6});
  auto b2 = from_blob(data, {2, 3}, {3, 1});
  auto b3 = for_blob(data, {2, 3})
                .strides({3, 1})
                .dynamism(TensorShapeDynamism::STATIC)
                .make_tensor_ptr();
  CHECK(b1->numel() == 6 && b2->strides()[0] == 3);
  CHECK(b3->shape_dynamism() == TensorShapeDynamism::STATIC);

  // Factories.
  auto e = empty({2, 3});
  auto el = empty_like(e);
  auto es = empty_strided({2, 3}, {3, 1});
  auto f = full({2, 3}, 42.0f);
  auto fl = full_like(f, 1);
  auto fs = full_strided({2, 3}, {3, 1}, 7);
  auto z = zeros({2, 3});
  auto zl = zeros_like(z);
  auto o = ones({2, 3}, ScalarType::Int);
  auto ol = ones_like(o);
  auto r = rand({2, 3});
  auto rl = rand_like(r);
  auto rn = randn({2, 3});
  auto rnl = randn_like(rn);
  auto ri = randint(0, 10, {2, 3});
  auto ril = randint_like(ri, 0, 10);
  auto s = scalar_tensor(3.5);
  CHECK(e->numel() == 6 && el->numel() == 6 && es->numel() == 6);
  CHECK(f->const_data_ptr<float>()[0] == 42.0f);
  CHECK(fl->const_data_ptr<float>()[0] == 1.0f);
  CHECK(fs->const_data_ptr<float>()[5] == 7.0f);
  CHECK(z->const_data_ptr<float>()[0] == 0.0f && zl->numel() == 6);
  CHECK(o->const_data_ptr<int32_t>()[0] == 1 && ol->scalar_type() == ScalarType::Int);
  CHECK(r->numel() == 6 && rl->numel() == 6 && rn->numel() == 6 && rnl->numel() == 6);
  CHECK(ri->scalar_type() == ScalarType::Int && ril->numel() == 6);
  CHECK(s->dim() == 0);

  auto accessor = make_tensor_accessor<float, 2>(*t2);
  CHECK(accessor.ok() && (*accessor)[1][2] == 6.0f);

  // A TensorPtr is accepted wherever an EValue is.
  executorch::runtime::EValue ev = t2;
  CHECK(ev.isTensor());
  std::vector<executorch::runtime::EValue> inputs{t1, t2};
  CHECK(inputs.size() == 2);

  std::printf("tensor_example: ok\n");
  return 0;
}
