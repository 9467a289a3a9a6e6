#include "settings.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace commprof {
namespace {

bool parse_value(const char* text, bool* out) {
  static const char* const yes[] = {"1", "yes", "on", "true"};
  static const char* const no[] = {"0", "no", "off", "false"};
  for (const char* y : yes)
    if (strcasecmp(text, y) == 0) return *out = true, true;
  for (const char* n : no)
    if (strcasecmp(text, n) == 0) return *out = false, true;
  return false;
}

// A finite, positive number (sizes, speeds).
bool parse_value(const char* text, double* out) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(v > 0) || v > 1e300) return false;
  *out = v;
  return true;
}

bool parse_value(const char* text, std::string* out) {
  *out = text;
  return true;
}

std::string describe(bool v) { return v ? "1" : "0"; }
std::string describe(const std::string& v) { return v.empty() ? "unset" : v; }
std::string describe(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

}  // namespace

Settings read_settings(std::vector<std::string>* warnings) {
  Settings s;
#define COMMPROF_READ(name, type, def, help)                                                     \
  if (const char* text = std::getenv("COMMPROF_" #name)) {                                       \
    type value{};                                                                                \
    if (parse_value(text, &value))                                                               \
      s.name = value;                                                                            \
    else                                                                                         \
      warnings->push_back(std::string("ignoring COMMPROF_" #name "='") + text + "' (keeping " + \
                          describe(s.name) + ")");                                               \
  }
  COMMPROF_SETTINGS(COMMPROF_READ)
#undef COMMPROF_READ

  static const char* const known[] = {
#define COMMPROF_NAME(name, type, def, help) "COMMPROF_" #name,
      COMMPROF_SETTINGS(COMMPROF_NAME)
#undef COMMPROF_NAME
      // commprof-run's own (which library to preload), not typos.
      "COMMPROF_LIBRARY", "COMMPROF_OMPI_LIBRARY",
  };
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "COMMPROF_", 9) != 0) continue;
    const std::string name(*e, std::strcspn(*e, "="));
    bool found = false;
    for (const char* k : known) found = found || name == k;
    if (!found) warnings->push_back("unknown setting " + name + " ignored");
  }
  return s;
}

std::string settings_help() {
  std::string out;
  const Settings defaults;
#define COMMPROF_HELP_LINE(name, type, def, help) \
  out += "COMMPROF_" #name " (default " + describe(defaults.name) + "): " + help + "\n";
  COMMPROF_SETTINGS(COMMPROF_HELP_LINE)
#undef COMMPROF_HELP_LINE
  return out;
}

}  // namespace commprof
