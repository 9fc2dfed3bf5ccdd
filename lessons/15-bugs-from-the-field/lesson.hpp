/// @file
/// Lesson 15: bugs from the field. Four small pieces of tensor-parallel training, each shipped
/// with one bug of a kind that public frameworks have shipped; the functions the exercise holds.
#pragma once

#include <cstdint>
#include <vector>

#include "comm/comm.hpp"
#include "device/device.hpp"

namespace tplab::lessons::field_bugs {

/// The global L2 norm of a model's gradients over its tensor-parallel group `tp`, each element
/// of the model counted once: `sharded` holds this rank's shards of the tensors split over tp
/// (the shards of one tensor together make it whole), `replicated` the tensors every rank of tp
/// holds whole (a row-parallel layer's bias, LayerNorm's gamma and beta). The same value on
/// every rank. Collective over tp.
double global_gradient_norm(Device& device, Comm& tp, const std::vector<Tensor>& sharded,
                            const std::vector<Tensor>& replicated);

/// Masks the padding of a vocabulary-parallel output layer. The vocabulary of V words is
/// padded to Vp >= V columns, split over tp: this rank's logits[m, Vp/t] are the global
/// columns first_column .. first_column + Vp/t - 1, and every global column at or past V is a
/// padded word, which must take no probability (its logit -infinity). In place.
void mask_padded_logits(Device& device, Tensor& logits, std::int64_t first_column,
                        std::int64_t vocab);

/// The gradients of a LayerNorm inside a sequence-parallel region: each rank has summed
/// d_gamma[h] and d_beta[h] over its own m/t tokens only; replaced, in place, by the sums over
/// every token, the same on every rank of tp. Collective over tp.
void reduce_sequence_parallel_gradients(Device& device, Comm& tp, Tensor& d_gamma, Tensor& d_beta);

/// One SGD step on a parameter that every rank of tp holds whole, from its gradient (the same
/// on every rank): p = p - lr g, on every rank, so that the copies stay bitwise identical.
void sgd_step_replicated(Device& device, Comm& tp, Tensor& p, const Tensor& g, double lr);

}  // namespace tplab::lessons::field_bugs
