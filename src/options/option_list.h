// The machinery behind option strings and files: a table of named fields per options struct
// (OptionField), and the parser and printer of "name=value;name={nested};..." lists over such
// a table. The tables themselves are in option_fields.h.
//
// Grammar of a list (RocksDB's): entries separated by ';' (empty entries are ignored), each
// "name=value" with whitespace around names and values ignored; a value that starts with '{'
// runs to the matching '}' and may hold ';' (a nested list); nothing but whitespace may follow
// the '}' before the next ';'.
//
// Thread-safety: stateless functions over immutable tables.
#ifndef SHALE_OPTIONS_OPTION_LIST_H_
#define SHALE_OPTIONS_OPTION_LIST_H_

#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "options/option_value.h"
#include "shale/status.h"

namespace shale {

// How a list is parsed.
struct OptionParseContext {
  // Prepended to names in messages: "" at top level, "block_based_table_factory." inside.
  std::string prefix;
  // Null: strict (option strings): an unknown name is an error. Non-null: lenient (OPTIONS
  // files, which may come from RocksDB): an unknown name is skipped with a note appended here.
  std::vector<std::string>* warnings = nullptr;
  // The table options come from another engine's file (RocksDB's): its table format_version
  // means nothing to ShaleDB and is skipped with a note.
  bool foreign_table_format = false;
};

// Where an Options field goes in an OPTIONS file.
enum class OptionGroup { kDB, kCF, kTableFactory };

// One named field of the options struct S.
template <typename S>
struct OptionField {
  std::string_view name;
  OptionGroup group;
  // Reads `value` (trimmed) into the field of *target. `name` is the qualified name for
  // messages. InvalidArgument naming the option and value when the value is bad.
  Status (*parse)(std::string_view name, std::string_view value, const OptionParseContext& ctx,
                  S* target);
  // The field's value as text that `parse` reads back to the same value. Null for a field
  // that is only read (another engine's spelling of an option printed under its own name);
  // printers skip it.
  std::string (*print)(const S& source);
  // DB::SetOptions (a column-family option) or DB::SetDBOptions (a DB option) may change it
  // on an open DB (options/dynamic_options.h).
  bool dynamic = false;
};

// InvalidArgument "<name>: invalid value '<value>' (expected <expected>)".
Status BadOptionValue(std::string_view name, std::string_view value, std::string_view expected);

struct OptionPair {
  std::string_view name;
  std::string_view value;  // without the braces of a nested list
};

// Splits `text` into its entries. InvalidArgument (names prefixed by ctx.prefix) on an entry
// without '=', an empty name, or unbalanced braces. The views point into `text`.
Status SplitOptionList(std::string_view text, const OptionParseContext& ctx,
                       std::vector<OptionPair>* pairs);

// Appends the note that an unknown option was skipped, or returns the error, per ctx.
Status UnknownOption(std::string_view name, std::string_view value,
                     const OptionParseContext& ctx);

template <typename S>
const OptionField<S>* FindOptionField(std::span<const OptionField<S>> fields,
                                      std::string_view name) {
  for (const OptionField<S>& field : fields) {
    if (field.name == name) return &field;
  }
  return nullptr;
}

// Parses one "name=value" into *target.
template <typename S>
Status ParseOneOption(std::span<const OptionField<S>> fields, std::string_view name,
                      std::string_view value, const OptionParseContext& ctx, S* target) {
  std::string qualified = ctx.prefix + std::string(name);
  const OptionField<S>* field = FindOptionField(fields, name);
  if (field == nullptr) return UnknownOption(qualified, value, ctx);
  return field->parse(qualified, TrimOptionText(value), ctx, target);
}

// Parses a whole list into *target, entry by entry (later entries win). On error *target may
// be partly changed: callers parse into a copy.
template <typename S>
Status ParseOptionList(std::span<const OptionField<S>> fields, std::string_view text,
                       const OptionParseContext& ctx, S* target) {
  std::vector<OptionPair> pairs;
  Status s = SplitOptionList(text, ctx, &pairs);
  for (size_t i = 0; s.ok() && i < pairs.size(); i++) {
    s = ParseOneOption(fields, pairs[i].name, pairs[i].value, ctx, target);
  }
  return s;
}

// "name=value<sep>name=value..." for the fields whose group passes `include`.
template <typename S, typename Include>
std::string PrintOptionList(std::span<const OptionField<S>> fields, const S& source,
                            std::string_view separator, Include include) {
  std::string text;
  for (const OptionField<S>& field : fields) {
    if (!include(field.group) || field.print == nullptr) continue;
    if (!text.empty()) text += separator;
    text += field.name;
    text += '=';
    text += field.print(source);
  }
  return text;
}

// ---- Field makers: parse and print functions generated from a member pointer.

template <typename T>
bool ParseOptionScalar(std::string_view s, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    return ParseOptionBool(s, out);
  } else if constexpr (std::is_enum_v<T>) {
    return ParseOptionEnum(s, out);
  } else if constexpr (std::is_integral_v<T>) {
    return ParseOptionInt(s, out);
  } else {
    static_assert(std::is_same_v<T, double>, "no option syntax for this type");
    return ParseOptionDouble(s, out);
  }
}

template <typename T>
std::string PrintOptionScalar(T value) {
  if constexpr (std::is_same_v<T, bool>) {
    return PrintOptionBool(value);
  } else if constexpr (std::is_enum_v<T>) {
    return PrintOptionEnum(value);
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(value);
  } else {
    return PrintOptionDouble(value);
  }
}

// What a value of type T looks like, for error messages.
template <typename T>
std::string OptionScalarSyntax() {
  if constexpr (std::is_same_v<T, bool>) {
    return "true, false, 1 or 0";
  } else if constexpr (std::is_enum_v<T>) {
    return OptionEnumChoices<T>();
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return "an integer in range, optionally with a K, M, G or T suffix";
  } else if constexpr (std::is_integral_v<T>) {
    return "a non-negative integer in range, optionally with a K, M, G or T suffix";
  } else {
    return "a finite number";
  }
}

template <typename S, auto kMember>
Status ParseScalarMember(std::string_view name, std::string_view value,
                         const OptionParseContext&, S* target) {
  using T = std::remove_cvref_t<decltype(target->*kMember)>;
  T parsed{};
  if (!ParseOptionScalar(value, &parsed)) {
    return BadOptionValue(name, value, OptionScalarSyntax<T>());
  }
  target->*kMember = parsed;
  return Status::OK();
}

template <typename S, auto kMember>
std::string PrintScalarMember(const S& source) {
  return PrintOptionScalar(source.*kMember);
}

template <typename S, auto kMember>
constexpr OptionField<S> ScalarField(std::string_view name, OptionGroup group) {
  return {name, group, &ParseScalarMember<S, kMember>, &PrintScalarMember<S, kMember>};
}

// A member that is itself an options struct, written "{name=value;...}". kFields is a
// function returning the member's field table.
template <typename S, auto kMember, auto kFields>
Status ParseNestedMember(std::string_view name, std::string_view value,
                         const OptionParseContext& ctx, S* target) {
  OptionParseContext nested = ctx;
  nested.prefix = std::string(name) + ".";
  // Strings hand over the list without its braces; an OPTIONS file line keeps them.
  if (value.size() >= 2 && value.front() == '{' && value.back() == '}') {
    value = value.substr(1, value.size() - 2);
  }
  return ParseOptionList(kFields(), value, nested, &(target->*kMember));
}

template <typename S, auto kMember, auto kFields>
std::string PrintNestedMember(const S& source) {
  std::string text = "{";
  text += PrintOptionList(kFields(), source.*kMember, ";", [](OptionGroup) { return true; });
  text += '}';
  return text;
}

template <typename S, auto kMember, auto kFields>
constexpr OptionField<S> NestedField(std::string_view name, OptionGroup group) {
  return {name, group, &ParseNestedMember<S, kMember, kFields>,
          &PrintNestedMember<S, kMember, kFields>};
}

}  // namespace shale

#endif  // SHALE_OPTIONS_OPTION_LIST_H_
