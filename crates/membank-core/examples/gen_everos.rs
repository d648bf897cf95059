//! Write a synthetic everos memory root: `gen_everos DIR N` (N entries).

use std::path::PathBuf;
use std::process::ExitCode;

use membank_core::synth_everos;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(Ok(n))) = (args.first(), args.get(1).map(|n| n.parse::<usize>())) else {
        eprintln!("usage: gen_everos DIR N");
        return ExitCode::from(2);
    };
    match synth_everos::generate(&PathBuf::from(dir), n) {
        Ok(days) => {
            let last = synth_everos::day(days.saturating_sub(1));
            println!(
                "{n} entries for {} users over {days} days (2024-01-01 to {last})",
                synth_everos::USERS
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{dir}: {e}");
            ExitCode::FAILURE
        }
    }
}
