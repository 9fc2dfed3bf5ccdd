/// @file
/// Names for the values of an enum, written once beside the enum: what the command line takes,
/// what the JSON records and what messages print all read the same table.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tplab {

/// One value of an enum and the name it goes by.
template <class E>
struct Named {
  std::string_view name;  ///< what the command line takes and the JSON records
  E value;                ///< the value it stands for
};

/// The name of `value` in `names` (a table of Named<E>); "?" when it has none.
template <class Table, class E>
constexpr std::string_view name_in(const Table& names, E value) {
  for (const auto& n : names) {
    if (n.value == value) return n.name;
  }
  return "?";
}

/// The value called `name` in `names`, if one is.
template <class Table>
constexpr auto value_in(const Table& names, std::string_view name)
    -> std::optional<decltype(names.begin()->value)> {
  for (const auto& n : names) {
    if (n.name == name) return n.value;
  }
  return std::nullopt;
}

/// "f64, f32 or bf16": every name of `names` in order, for help texts and messages.
template <class Table>
std::string names_text(const Table& names) {
  std::string text;
  std::size_t i = 0;
  for (const auto& n : names) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += n.name;
    ++i;
  }
  return text;
}

}  // namespace tplab
