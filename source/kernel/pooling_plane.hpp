// PoolingPlane: the geometry of one channel that every pooling kernel works on.
#ifndef LUMEN_KERNEL_POOLING_PLANE_HPP_
#define LUMEN_KERNEL_POOLING_PLANE_HPP_

namespace lumen {

// One channel's geometry: column-major input_h x input_w in, column-major output_h x output_w out.
struct PoolingPlane {
  int input_h = 0, input_w = 0;
  int output_h = 0, output_w = 0;
};

}  // namespace lumen

#endif  // LUMEN_KERNEL_POOLING_PLANE_HPP_
