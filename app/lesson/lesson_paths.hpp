/// @file
/// Where the lesson launcher finds the lessons: the checkout and the build tree this program was
/// built from (compile definitions of the library tplab_lesson_launcher).
#pragma once

#include <filesystem>

namespace tplab::app {

/// The checkout: lessons/NN-slug/ with each lesson's sources.
inline const std::filesystem::path kSourceDir = TPLAB_SOURCE_DIR;
/// The build tree: build/lessons/, where each lesson's programs are built.
inline const std::filesystem::path kBinaryDir = TPLAB_BINARY_DIR;

}  // namespace tplab::app
