/// @file
/// VocabularyOps on the CPU: the embedding rows and the cross-entropy sums of one vocabulary
/// shard (GPT only; gpt/vocab_parallel_embedding.cpp, gpt/vocab_parallel_cross_entropy.cpp).
#include "device/eigen_views.hpp"
#include "device/ops/cpu_ops.hpp"

namespace tplab::cpu {
namespace {

class CpuVocabulary final : public VocabularyOps {
 public:
  void gather_rows(const Tensor& table, std::span<const std::int64_t> ids, Tensor& out) override {
    require(out.rows() == static_cast<std::int64_t>(ids.size()) && out.cols() == table.cols() &&
                out.dtype() == table.dtype(),
            "gather_rows",
            fmt::format("{} rows of {} into {}", ids.size(), to_string(table.extents()),
                        to_string(out.extents())));
    dispatch(table.dtype(), [&]<typename T>() {
      const auto in = matrix<T>(table);
      auto dst = matrix<T>(out);
      for (std::size_t r = 0; r < ids.size(); ++r) {
        const auto i = static_cast<Eigen::Index>(r);
        if (ids[r] >= 0 && ids[r] < table.rows()) {
          dst.row(i) = in.row(ids[r]);
        } else {
          dst.row(i).setZero();
        }
      }
    });
  }

  void scatter_add_rows(const Tensor& src, std::span<const std::int64_t> ids,
                        Tensor& table) override {
    require(src.rows() == static_cast<std::int64_t>(ids.size()) && src.cols() == table.cols() &&
                src.dtype() == table.dtype(),
            "scatter_add_rows",
            fmt::format("{} rows of {} into {}", ids.size(), to_string(src.extents()),
                        to_string(table.extents())));
    dispatch(table.dtype(), [&]<typename T>() {
      const auto in = matrix<T>(src);
      auto dst = matrix<T>(table);
      for (std::size_t r = 0; r < ids.size(); ++r) {
        if (ids[r] >= 0 && ids[r] < table.rows()) {
          dst.row(ids[r]) += in.row(static_cast<Eigen::Index>(r));
        }
      }
    });
  }

  void row_max(const Tensor& x, Tensor& out) override {
    require(out.numel() == x.rows() && out.dtype() == x.dtype() && x.cols() > 0, "row_max",
            "one maximum per row of a non-empty row");
    dispatch(x.dtype(), [&]<typename T>() { flat<T>(out) = rows<T>(x).rowwise().maxCoeff(); });
  }

  void cross_entropy_sums(const Tensor& logits, const Tensor& max,
                          std::span<const std::int64_t> targets, Tensor& sums) override {
    require(max.numel() == logits.rows() &&
                static_cast<std::int64_t>(targets.size()) == logits.rows() &&
                sums.extents() == Extents{logits.rows(), 2} && sums.dtype() == logits.dtype(),
            "cross_entropy_sums", "one maximum and one target per row, sums [rows, 2]");
    dispatch(logits.dtype(), [&]<typename T>() {
      const auto x = rows<T>(logits);
      auto out = rows<T>(sums);
      out.col(0) = (x.colwise() - flat<T>(max)).exp().rowwise().sum();
      for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const std::int64_t t = targets[static_cast<std::size_t>(r)];
        out(r, 1) = t >= 0 && t < x.cols() ? x(r, t) : T(0);
      }
    });
  }

  void cross_entropy_backward(const Tensor& logits, const Tensor& max, const Tensor& sums,
                              std::span<const std::int64_t> targets, double scale,
                              Tensor& dlogits) override {
    require_same(logits, dlogits, "cross_entropy_backward");
    require(max.numel() == logits.rows() &&
                static_cast<std::int64_t>(targets.size()) == logits.rows() &&
                sums.extents() == Extents{logits.rows(), 2},
            "cross_entropy_backward", "one maximum, one pair of sums and one target per row");
    dispatch(logits.dtype(), [&]<typename T>() {
      const auto x = rows<T>(logits);
      const auto s = rows<T>(sums);
      auto d = rows<T>(dlogits);
      const T k = static_cast<T>(scale);
      // softmax = exp(x - max) / sum over the whole vocabulary of exp(x - max)
      d = ((x.colwise() - flat<T>(max)).exp().colwise() / s.col(0)) * k;
      for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const std::int64_t t = targets[static_cast<std::size_t>(r)];
        if (t >= 0 && t < x.cols()) d(r, t) -= k;
      }
    });
  }

  void fill_columns_from(Tensor& x, std::int64_t col0, double value) override {
    require(col0 >= 0 && col0 <= x.cols(), "fill_columns_from",
            fmt::format("column {} of {}", col0, to_string(x.extents())));
    dispatch(x.dtype(), [&]<typename T>() {
      rows<T>(x).rightCols(x.cols() - col0).setConstant(static_cast<T>(value));
    });
  }
};

}  // namespace

std::unique_ptr<VocabularyOps> make_vocabulary_ops() {
  return std::make_unique<CpuVocabulary>();
}

}  // namespace tplab::cpu
