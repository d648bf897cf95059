//! Write a synthetic memory bank: `gen_bank DIR N [SEED] [AVG_BYTES]`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use membank_core::synth::{self, SynthOptions};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gen_bank DIR N [SEED] [AVG_BYTES]";
    let (Some(dir), Some(n)) = (args.first(), args.get(1)) else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let number = |i: usize, what: &str, default: u64| -> Result<u64, String> {
        args.get(i).map_or(Ok(default), |s| {
            s.parse()
                .map_err(|_| format!("{what} must be a whole number, not {s:?}"))
        })
    };
    let defaults = SynthOptions::default();
    let parsed = (|| {
        Ok::<_, String>(SynthOptions {
            articles: number(1, "N", 0)? as usize,
            seed: number(2, "SEED", defaults.seed)?,
            avg_bytes: number(3, "AVG_BYTES", defaults.avg_bytes as u64)? as usize,
        })
    })();
    let opts = match parsed {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}\n{usage} (N was {n:?})");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    match synth::generate(&PathBuf::from(dir), opts) {
        Ok(s) => {
            println!(
                "wrote {} files, {} bytes in {:.2?}: {} clients, {} terminology, {} domains, {} style, {} inbox notes; {} links ({} dead)",
                s.files,
                s.total_bytes,
                start.elapsed(),
                s.clients,
                s.terminology,
                s.domains,
                s.style,
                s.inbox_notes,
                s.links,
                s.dead_links
            );
            println!("busiest client: {}", s.busiest_client);
            println!("busiest domain: {}", s.busiest_domain);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{dir}: {e}");
            ExitCode::FAILURE
        }
    }
}
