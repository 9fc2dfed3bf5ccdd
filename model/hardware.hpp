/// @file
/// HardwareProfile: the rates the cost model turns counts into seconds with, read from a data
/// file in which every number names its source.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "comm/collective.hpp"

namespace tplab::model {

/// The alpha-beta rates of one collective on one kind of link.
struct LinkRate {
  double latency_s = 0;              ///< alpha: the time of one ring step with no data
  double bandwidth_bytes_per_s = 0;  ///< per device and direction: what one link carries
};

/// One kind of link (within a node, or between nodes). A profile measured on a machine may give
/// each collective its own rates; the rest use the link's.
struct Link {
  /// The link's rates, for every collective without its own.
  LinkRate rate;
  /// Rates measured for single collectives (a calibrated profile has them).
  std::map<Collective, LinkRate> per_collective;

  /// The rates of `collective`: its own if the profile has them, else the link's.
  const LinkRate& rate_of(Collective collective) const;
};

/// A machine, as the cost model sees it: nodes of equal devices, one rank per device.
///
/// Bandwidths are bytes per second per device in one direction: what a ring step can push
/// from a device to its neighbour while it receives as much from the other side. Datasheets
/// often give the sum of both directions (NVLink's "900 GB/s" is 450 GB/s each way) or bits
/// (InfiniBand's "400 Gb/s" is 50 GB/s); the data file says which conversion it made.
struct HardwareProfile {
  /// The profile's key in the data file: "dgx-h100", "local".
  std::string name;
  /// One line on the machine, for reports.
  std::string description;
  int gpus_per_node = 1;                       ///< devices per node; consecutive ranks fill a node
  double matmul_flops_per_s = 0;               ///< per device, the rate matrix products run at
  int bytes_per_element = 4;                   ///< of activations, weights and messages
  double memory_bytes = 0;                     ///< per device
  Link intra_node;                             ///< between devices of one node
  std::optional<Link> inter_node;              ///< between nodes; none: the profile is one node
  std::map<std::string, std::string> sources;  ///< for each number (by its key), where it is from
  /// The names CUDA gives the profile's GPU ("NVIDIA H200"), matched whole, for a GPU run's
  /// MFU (gpu_peak); empty for a profile of no GPU.
  std::vector<std::string> gpu_names;
  /// The device's dense peak per dtype name ("bf16", "f32", "f64"), FLOP/s: without structured
  /// sparsity, which is what MFU divides by.
  std::map<std::string, double> dense_peak_flops_per_s;
  /// The peak with 2:4 structured sparsity where the datasheet quotes one: twice the dense
  /// peak, kept beside it so that nobody takes it for the peak.
  std::map<std::string, double> sparse_peak_flops_per_s;
};

/// A GPU's dense peak for one dtype, and where it is from.
struct GpuPeak {
  std::string profile;            ///< the profile that names the GPU
  std::string dtype;              ///< the dtype the peak is for
  double flops_per_s = 0;         ///< dense
  double sparse_flops_per_s = 0;  ///< with 2:4 sparsity, or 0 where the profile gives none
  std::string source;             ///< the datasheet line
};

/// The dense peak of the GPU CUDA calls `device_name` in `dtype`, from the profile whose
/// gpu_names hold that name; none when no profile names the GPU or gives that dtype's peak.
std::optional<GpuPeak> gpu_peak(const std::map<std::string, HardwareProfile>& profiles,
                                const std::string& device_name, std::string_view dtype);

/// Parses one profile; `name` is its key in the file. Throws UsageError naming the field when
/// a number is missing, not positive, or lacks its source.
HardwareProfile parse_profile(const std::string& name, const nlohmann::json& json);

/// The profile as the data file writes it.
nlohmann::json profile_json(const HardwareProfile& profile);

/// Every profile of `path` ({"profiles": {name: {...}}}). Throws UsageError when the file is
/// missing or malformed.
std::map<std::string, HardwareProfile> load_profiles(const std::string& path);

/// The file shipped with tplab (model/hardware.json), or TPLAB_HARDWARE_FILE where a bundle
/// carries it elsewhere.
std::string shipped_hardware_file();

/// Where `./tplab model --calibrate` writes the measured `local` profile
/// (build/hardware-local.json).
std::string calibrated_local_file();

/// The shipped profiles, with `local` replaced by the calibrated one when it exists, and then
/// those of `extra_file` (if not empty) over both.
std::map<std::string, HardwareProfile> available_profiles(const std::string& extra_file = "");

/// The profile called `name`; throws UsageError listing the known names otherwise.
const HardwareProfile& find_profile(const std::map<std::string, HardwareProfile>& profiles,
                                    std::string_view name);

}  // namespace tplab::model
