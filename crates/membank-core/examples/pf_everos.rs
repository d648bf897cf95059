use std::time::Instant;
use membank_core::memory::Memory;
use membank_core::search::SearchIndex;
fn cpu() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    (u.ru_utime.tv_sec as f64 + u.ru_utime.tv_usec as f64 / 1e6) + (u.ru_stime.tv_sec as f64 + u.ru_stime.tv_usec as f64 / 1e6)
}
fn main() {
    let c0 = cpu();
    let dir = std::env::args().nth(1).unwrap();
    let t = Instant::now();
    let root = membank_core::everos::load(&dir).unwrap();
    let load = t.elapsed(); let c1 = cpu();
    if std::env::var_os("PF_LOADONLY").is_some() { std::mem::forget(root); return; }
    let memory: &dyn Memory = &root;
    let t = Instant::now();
    let units = memory.search_units();
    let su = t.elapsed();
    drop(units);
    let t = Instant::now();
    let index = if std::env::var_os("PF_FULL").is_some() { SearchIndex::of_memory(memory) } else { SearchIndex::of_memory_for_query(memory, "kyoto budget deadline") };
    let ix = t.elapsed(); let c2 = cpu();
    let t = Instant::now();
    let hits = index.search(memory, "kyoto budget deadline", 20);
    let n = index.count_matches("kyoto budget deadline");
    let q = t.elapsed();
    eprintln!("cpu: load {:.3} index {:.3}", c1 - c0, c2 - c1);
    eprintln!("load {load:?} units {su:?} index(incl units) {ix:?} query {q:?} hits {} matches {n}", hits.len());
    std::mem::forget(index);
    std::mem::forget(root);
}
