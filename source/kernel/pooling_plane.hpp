// PoolingPlane: the geometry of one channel that every pooling kernel works on.
#ifndef LUMEN_KERNEL_POOLING_PLANE_HPP_
#define LUMEN_KERNEL_POOLING_PLANE_HPP_

#include "math/window.hpp"

namespace lumen {

// One channel's geometry: column-major input_h x input_w in, column-major output_h x output_w out
// (the same pair of planes a convolution maps).
using PoolingPlane = PlanePair;

}  // namespace lumen

#endif  // LUMEN_KERNEL_POOLING_PLANE_HPP_
