//! The floor of any reader of a bank: walk it and read every file, nothing
//! else (no decoding, no parsing, no output but a count).
//!
//!     cargo run --release -p membank-core --example read_floor -- BANK [THREADS]
//!
//! THREADS readers (default 2) take the files walked, one after another,
//! each with one open, one read into a buffer it reuses, and one close.
//! `benches/scripts/compare.py` times it beside `membank` and the Python
//! loop: a command that must also parse and check what it reads cannot
//! finish before this does.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().as_encoded_bytes().starts_with(b".") {
            continue;
        }
        // The entry's own type: a link is neither followed nor read.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(&entry.path(), files);
        } else if kind.is_file() {
            files.push(entry.path());
        }
    }
}

/// Read `file` to its end into `buffer`, growing it if need be: a read
/// that fills less than the buffer is taken as the end, so a small file
/// costs one read (`read_to_end` asks for the size first and reads once
/// more to see the end).
fn read_all(file: &mut std::fs::File, buffer: &mut Vec<u8>) -> usize {
    let mut filled = 0;
    loop {
        match file.read(&mut buffer[filled..]) {
            Ok(0) | Err(_) => return filled,
            Ok(n) => filled += n,
        }
        if filled < buffer.len() {
            return filled;
        }
        buffer.resize(buffer.len() * 2, 0);
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(bank) = args.next() else {
        eprintln!("usage: read_floor BANK [THREADS]");
        std::process::exit(2);
    };
    let threads: usize = args.next().and_then(|t| t.parse().ok()).unwrap_or(2).max(1);
    let mut files = Vec::new();
    walk(Path::new(&bank), &mut files);
    let next = AtomicUsize::new(0);
    let bytes = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut buffer = vec![0u8; 1 << 16];
                let mut read = 0;
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = files.get(i) else { break };
                    if let Ok(mut file) = std::fs::File::open(path) {
                        read += read_all(&mut file, &mut buffer);
                    }
                }
                bytes.fetch_add(read, Ordering::Relaxed);
            });
        }
    });
    println!(
        "{} files, {} bytes, {threads} threads",
        files.len(),
        bytes.load(Ordering::Relaxed)
    );
}
