/// @file
/// HardwareProfile: reading, checking and writing the hardware data file.
#include "hardware.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/error.hpp"

namespace tplab::model {
namespace {

const Collective kCollectives[] = {
    Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter,
    Collective::broadcast,  Collective::reduce,     Collective::send,
    Collective::recv};

/// Reads the profile's fields, each with the source the file gives for it.
class FieldReader {
 public:
  FieldReader(const std::string& profile, const nlohmann::json& json)
      : profile_(profile), json_(json) {
    if (!json_.is_object()) throw error("", "is not an object");
    if (json_.contains("sources") && json_["sources"].is_object()) {
      for (const auto& [key, value] : json_["sources"].items()) {
        if (value.is_string()) sources_[key] = value.get<std::string>();
      }
    }
  }

  /// The positive number at `path` ("intra_node.latency_s"), which must have a source.
  double number(const std::string& path) const {
    const nlohmann::json* at = &json_;
    std::size_t start = 0;
    while (true) {
      const std::size_t dot = path.find('.', start);
      const std::string key = path.substr(start, dot - start);
      if (!at->is_object() || !at->contains(key)) throw error(path, "is missing");
      at = &(*at)[key];
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    if (!at->is_number() || at->get<double>() <= 0) throw error(path, "must be a positive number");
    if (!sources_.contains(path) || sources_.at(path).empty()) {
      throw error(path, "has no source: add \"" + path + "\" to \"sources\"");
    }
    return at->get<double>();
  }

  std::string text(const std::string& key) const {
    if (!json_.contains(key) || !json_[key].is_string()) throw error(key, "must be a string");
    return json_[key].get<std::string>();
  }

  bool has(const std::string& key) const { return json_.contains(key); }
  const nlohmann::json& at(const std::string& key) const { return json_[key]; }
  const std::map<std::string, std::string>& sources() const { return sources_; }

  UsageError error(const std::string& path, const std::string& what) const {
    return UsageError(fmt::format("hardware profile '{}': {}{}", profile_,
                                  path.empty() ? "" : "\"" + path + "\" ", what));
  }

 private:
  std::string profile_;
  const nlohmann::json& json_;
  std::map<std::string, std::string> sources_;
};

Link read_link(const FieldReader& f, const std::string& key) {
  Link link;
  link.rate = {f.number(key + ".latency_s"), f.number(key + ".bandwidth_bytes_per_s")};
  if (!f.at(key).contains("per_collective")) return link;
  for (Collective c : kCollectives) {
    const std::string name(collective_name(c));
    if (!f.at(key)["per_collective"].contains(name)) continue;
    const std::string prefix = key + ".per_collective." + name;
    link.per_collective[c] = {f.number(prefix + ".latency_s"),
                              f.number(prefix + ".bandwidth_bytes_per_s")};
  }
  return link;
}

nlohmann::json link_json(const Link& link) {
  nlohmann::json j = {{"latency_s", link.rate.latency_s},
                      {"bandwidth_bytes_per_s", link.rate.bandwidth_bytes_per_s}};
  for (const auto& [c, rate] : link.per_collective) {
    j["per_collective"][std::string(collective_name(c))] = {
        {"latency_s", rate.latency_s}, {"bandwidth_bytes_per_s", rate.bandwidth_bytes_per_s}};
  }
  return j;
}

/// The per-dtype peaks of `key` ({"bf16": ..., "f32": ...}), each with its source; none when the
/// profile has no such object.
std::map<std::string, double> read_peaks(const FieldReader& f, const std::string& key) {
  std::map<std::string, double> peaks;
  if (!f.has(key)) return peaks;
  if (!f.at(key).is_object()) throw f.error(key, "must be an object of dtype: FLOP/s");
  for (const auto& [dtype, value] : f.at(key).items()) peaks[dtype] = f.number(key + "." + dtype);
  return peaks;
}

std::vector<std::string> read_gpu_names(const FieldReader& f) {
  std::vector<std::string> names;
  if (!f.has("gpu_names")) return names;
  if (!f.at("gpu_names").is_array()) throw f.error("gpu_names", "must be a list of strings");
  for (const auto& name : f.at("gpu_names")) {
    if (!name.is_string()) throw f.error("gpu_names", "must be a list of strings");
    names.push_back(name.get<std::string>());
  }
  return names;
}

}  // namespace

const LinkRate& Link::rate_of(Collective collective) const {
  const auto found = per_collective.find(collective);
  return found == per_collective.end() ? rate : found->second;
}

HardwareProfile parse_profile(const std::string& name, const nlohmann::json& json) {
  const FieldReader f(name, json);
  HardwareProfile p;
  p.name = name;
  p.description = f.text("description");
  const double gpus = f.number("gpus_per_node");
  const double bytes = f.number("bytes_per_element");
  if (gpus != static_cast<int>(gpus) || bytes != static_cast<int>(bytes)) {
    throw f.error("", "\"gpus_per_node\" and \"bytes_per_element\" must be whole numbers");
  }
  p.gpus_per_node = static_cast<int>(gpus);
  p.bytes_per_element = static_cast<int>(bytes);
  p.matmul_flops_per_s = f.number("matmul_flops_per_s");
  p.memory_bytes = f.number("memory_bytes");
  p.intra_node = read_link(f, "intra_node");
  if (f.has("inter_node")) p.inter_node = read_link(f, "inter_node");
  p.gpu_names = read_gpu_names(f);
  p.dense_peak_flops_per_s = read_peaks(f, "dense_peak_flops_per_s");
  p.sparse_peak_flops_per_s = read_peaks(f, "sparse_peak_flops_per_s");
  if (!p.gpu_names.empty() && p.dense_peak_flops_per_s.empty()) {
    throw f.error("gpu_names", "needs \"dense_peak_flops_per_s\": a GPU's MFU divides by them");
  }
  p.sources = f.sources();
  return p;
}

nlohmann::json profile_json(const HardwareProfile& p) {
  nlohmann::json j = {{"description", p.description},
                      {"gpus_per_node", p.gpus_per_node},
                      {"matmul_flops_per_s", p.matmul_flops_per_s},
                      {"bytes_per_element", p.bytes_per_element},
                      {"memory_bytes", p.memory_bytes},
                      {"intra_node", link_json(p.intra_node)}};
  if (p.inter_node) j["inter_node"] = link_json(*p.inter_node);
  if (!p.gpu_names.empty()) j["gpu_names"] = p.gpu_names;
  if (!p.dense_peak_flops_per_s.empty()) j["dense_peak_flops_per_s"] = p.dense_peak_flops_per_s;
  if (!p.sparse_peak_flops_per_s.empty()) j["sparse_peak_flops_per_s"] = p.sparse_peak_flops_per_s;
  j["sources"] = p.sources;
  return j;
}

std::map<std::string, HardwareProfile> load_profiles(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw UsageError(fmt::format("cannot read the hardware file '{}'", path));
  }
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("hardware file '{}' is not JSON: {}", path, e.what()));
  }
  if (!json.contains("profiles") || !json["profiles"].is_object()) {
    throw UsageError(
        fmt::format("hardware file '{}' has no \"profiles\": {{name: {{...}}}} object", path));
  }
  std::map<std::string, HardwareProfile> profiles;
  for (const auto& [name, value] : json["profiles"].items()) {
    profiles[name] = parse_profile(name, value);
  }
  return profiles;
}

std::string shipped_hardware_file() {
  // A bundle for a machine without the sources (bench/gpu_bundle) ships the file and says where.
  const char* moved = std::getenv("TPLAB_HARDWARE_FILE");
  return moved != nullptr && *moved != '\0' ? moved : TPLAB_HARDWARE_FILE;
}

std::string calibrated_local_file() {
  return TPLAB_LOCAL_PROFILE_FILE;
}

std::map<std::string, HardwareProfile> available_profiles(const std::string& extra_file) {
  std::map<std::string, HardwareProfile> profiles = load_profiles(shipped_hardware_file());
  std::vector<std::string> overrides;
  if (std::filesystem::exists(calibrated_local_file())) {
    overrides.push_back(calibrated_local_file());
  }
  if (!extra_file.empty()) overrides.push_back(extra_file);
  for (const auto& file : overrides) {
    for (auto& [name, profile] : load_profiles(file)) profiles[name] = std::move(profile);
  }
  return profiles;
}

std::optional<GpuPeak> gpu_peak(const std::map<std::string, HardwareProfile>& profiles,
                                const std::string& device_name, std::string_view dtype) {
  const std::string key(dtype);
  for (const auto& [name, p] : profiles) {
    if (std::find(p.gpu_names.begin(), p.gpu_names.end(), device_name) == p.gpu_names.end()) {
      continue;
    }
    const auto dense = p.dense_peak_flops_per_s.find(key);
    if (dense == p.dense_peak_flops_per_s.end()) return std::nullopt;
    const auto sparse = p.sparse_peak_flops_per_s.find(key);
    return GpuPeak{name, key, dense->second,
                   sparse == p.sparse_peak_flops_per_s.end() ? 0.0 : sparse->second,
                   p.sources.at("dense_peak_flops_per_s." + key)};
  }
  return std::nullopt;
}

const HardwareProfile& find_profile(const std::map<std::string, HardwareProfile>& profiles,
                                    std::string_view name) {
  const auto found = profiles.find(std::string(name));
  if (found != profiles.end()) return found->second;
  std::vector<std::string> names;
  for (const auto& [known, profile] : profiles) names.push_back(known);
  throw UsageError(fmt::format("unknown hardware '{}' (known: {})", name, fmt::join(names, ", ")));
}

}  // namespace tplab::model
