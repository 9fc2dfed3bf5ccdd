/// @file
/// A string field of a JSON object that may lack it: the verdict files of the lesson programs
/// and the learner's progress file are read with it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tplab::app {

/// document[key] when it is a string; else (absent, or of another type) the empty string.
inline std::string text_or_empty(const nlohmann::json& document, const char* key) {
  const auto it = document.find(key);
  return it != document.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace tplab::app
