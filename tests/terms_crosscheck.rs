//! membank's TBX, CSV, XLIFF and TMX handling read and written by an
//! independent implementation: translate-toolkit, through
//! `tools/terms-crosscheck/crosscheck.py`. The Python interpreter comes from
//! `MEMBANK_TRANSLATE_TOOLKIT_PYTHON` (CI makes one) or is `python3`.

mod support;

use std::path::Path;
use std::process::Command;

fn python_with_translate_toolkit() -> Option<String> {
    let python =
        std::env::var("MEMBANK_TRANSLATE_TOOLKIT_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let found = Command::new(&python)
        .args(["-c", "import translate.storage.tbx"])
        .output()
        .is_ok_and(|out| out.status.success());
    if found {
        Some(python)
    } else {
        support::skip_loudly(&format!(
            "no Python with translate-toolkit ({python}), so membank's TBX, CSV, XLIFF and TMX \
             handling was NOT cross-checked. Install it (pip install translate-toolkit) or set \
             MEMBANK_TRANSLATE_TOOLKIT_PYTHON"
        ));
        None
    }
}

#[test]
fn translate_toolkit_reads_our_exports_and_we_read_its_files() {
    let Some(python) = python_with_translate_toolkit() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/terms-crosscheck/crosscheck.py");
    let out = Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_membank"))
        .arg(work.path())
        .output()
        .expect("the cross-check runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
