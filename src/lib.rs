//! membank's terminal interface as a library, so the binary, the tests and
//! the benchmarks share it.

pub mod tui;
