// The Catch2 main, kept in its own translation unit so test files compile fast.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
