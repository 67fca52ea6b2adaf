//! Runs a per-file job on all cores and hands results back in path order: files go to threads in
//! chunks, so output streams while later chunks are still being worked on, memory stays bounded,
//! and a panic on one file becomes that file's failure instead of ending the run.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::analyze::BashParser;
use crate::error::{Error, Result};

const CHUNK: usize = 256;

/// Run `job` over `files` (one parser per thread), calling `sink` with each result in order.
/// `failed` turns an error (parser setup, panic) into a result for that file.
pub fn for_each_ordered<T, J, F, S>(files: &[PathBuf], job: J, failed: F, mut sink: S) -> Result<()>
where
    T: Send,
    J: Fn(&Path, &mut BashParser) -> T + Sync,
    F: Fn(&Path, Error) -> T + Sync,
    S: FnMut(T),
{
    BashParser::new()?;
    for chunk in files.chunks(CHUNK) {
        let results: Vec<T> = chunk
            .par_iter()
            .map_init(BashParser::new, |parser, path| match parser {
                Ok(parser) => guarded(path, parser, &job, &failed),
                Err(e) => failed(path, e.clone()),
            })
            .collect();
        results.into_iter().for_each(&mut sink);
    }
    Ok(())
}

fn guarded<T>(
    path: &Path,
    parser: &mut BashParser,
    job: &impl Fn(&Path, &mut BashParser) -> T,
    failed: &impl Fn(&Path, Error) -> T,
) -> T {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(path, parser)));
    outcome.unwrap_or_else(|panic| {
        if let Ok(fresh) = BashParser::new() {
            *parser = fresh;
        }
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        failed(
            path,
            Error::new(
                "INTERNAL_PANIC",
                format!("skillmod crashed on this file ({what}); it was left unchanged. Please report it"),
            ),
        )
    })
}
