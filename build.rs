//! Packs the binary's relative relocations (`-z pack-relative-relocs`,
//! DT_RELR) where the C library that will load it applies them.
//!
//! The binary is position-independent, so every pointer in its tables
//! needs a relocation at start-up; written one by one they take 24 bytes
//! each, about half a megabyte of the installed binary. Packed, they take a
//! few kilobytes, and the addresses are still randomised. glibc applies
//! packed relocations from 2.36 on; a binary linked this way names that
//! need, so an older loader refuses it with a message instead of running it
//! unrelocated. The flag is passed only when building on and for Linux with
//! glibc 2.36 or later, so the loader that will run it is known to read it.
//!
//! Also folds functions whose machine code is identical into one (the many
//! copies generics make): 140 KB of the installed binary, where the linker
//! is known to be the LLVM one Rust brings (on x86-64 Linux from Rust 1.90
//! on, unless a linker was chosen). `--icf=all` folds only code, never
//! data, so no two statics share an address; Rust promises no distinct
//! addresses to distinct functions. `--icf=safe`, which spares functions
//! whose address is taken, folded nothing here.

use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if packed_relocations_loadable() {
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo::rerun-if-env-changed=RUSTC_LINKER");
    if links_with_rusts_own_lld() {
        println!("cargo::rustc-link-arg-bins=-Wl,--icf=all");
    }
}

/// rustc links x86-64 Linux programs through its own copy of LLD from 1.90
/// on; a linker named in the configuration or the flags may be another.
fn links_with_rusts_own_lld() -> bool {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    var("TARGET") == "x86_64-unknown-linux-gnu"
        && var("TARGET") == var("HOST")
        && std::env::var_os("RUSTC_LINKER").is_none()
        && !flags.contains("linker")
        && !flags.contains("link-self-contained")
        && rustc_minor_version().is_some_and(|minor| minor >= 90)
}

/// The minor version of the rustc building this ("rustc 1.95.0 (…)").
fn rustc_minor_version() -> Option<u32> {
    let rustc = std::env::var_os("RUSTC")?;
    let output = Command::new(rustc).arg("-V").output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let version = text.split_whitespace().nth(1)?;
    let mut parts = version.split('.');
    (parts.next()? == "1").then_some(())?;
    parts.next()?.parse().ok()
}

fn packed_relocations_loadable() -> bool {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    // Only a native build runs where it is built: a cross build's C
    // library cannot be asked.
    let native = var("TARGET") == var("HOST");
    native
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && glibc_version().is_some_and(|version| version >= (2, 36))
}

/// The build machine's glibc, from `getconf GNU_LIBC_VERSION` ("glibc 2.36").
fn glibc_version() -> Option<(u32, u32)> {
    let output = Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let (major, rest) = text.trim().strip_prefix("glibc ")?.split_once('.')?;
    let minor = rest.split('.').next()?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}
