//! Runs a per-file job on all cores and hands results back in path order. Each worker thread
//! owns one parser and claims the next file from a shared counter, so no thread waits for a
//! slow file in another's batch; the caller's sink sees results strictly in order as soon as
//! they are ready. Workers stay at most `AHEAD` files in front of the sink, which bounds memory.
//! A panic on one file becomes that file's failure instead of ending the run.

use crate::codes;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

use crate::analyze::BashParser;
use crate::error::{Error, Result};

/// How far workers may run ahead of the sink.
const AHEAD: usize = 1024;

static THREADS: AtomicUsize = AtomicUsize::new(0);

/// Set the number of worker threads (`--jobs`; all cores without it). Zero is a usage error.
pub(crate) fn set_jobs(jobs: Option<usize>) -> crate::error::Result<()> {
    match jobs {
        Some(0) => Err(crate::error::Error::new(
            codes::INVALID_ARGUMENT,
            "--jobs must be at least 1",
        )),
        Some(n) => {
            THREADS.store(n, Ordering::Relaxed);
            Ok(())
        }
        None => Ok(()),
    }
}

fn threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// Run `job` over `files` (one parser per thread), calling `sink` with each result in order.
/// `failed` turns an error (parser setup, panic) into a result for that file.
pub(crate) fn for_each_ordered<T, J, F, S>(
    files: &[PathBuf],
    job: J,
    failed: F,
    mut sink: S,
) -> Result<()>
where
    T: Send,
    J: Fn(&Path, &mut BashParser) -> T + Sync,
    F: Fn(&Path, Error) -> T + Sync,
    S: FnMut(T),
{
    BashParser::new()?;
    let next = AtomicUsize::new(0);
    let emitted = Mutex::new(0usize);
    let progress = Condvar::new();
    let (tx, rx) = mpsc::channel::<(usize, T)>();
    std::thread::scope(|scope| {
        for _ in 0..threads().min(files.len().max(1)) {
            let tx = tx.clone();
            let (next, emitted, progress, job, failed) =
                (&next, &emitted, &progress, &job, &failed);
            scope.spawn(move || {
                let mut parser = BashParser::new();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = files.get(index) else {
                        break;
                    };
                    wait_for_room(emitted, progress, index);
                    let result = match &mut parser {
                        Ok(parser) => guarded(path, parser, job, failed),
                        Err(e) => failed(path, e.clone()),
                    };
                    if tx.send((index, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut expected = 0;
        for (index, result) in rx {
            pending.insert(index, result);
            while let Some(result) = pending.remove(&expected) {
                sink(result);
                expected += 1;
            }
            if let Ok(mut done) = emitted.lock() {
                *done = expected;
            }
            progress.notify_all();
        }
    });
    Ok(())
}

/// `job` over every item on all cores, results in the items' order: for light jobs that need no
/// parser (a pre-pass over the files). A job must not panic; a panicking worker's results are
/// dropped.
pub fn map<I, T, J>(items: &[I], job: J) -> Vec<T>
where
    I: Sync,
    T: Send,
    J: Fn(&I) -> T + Sync,
{
    let next = AtomicUsize::new(0);
    let workers = threads().min(items.len()).max(1);
    let mut done: Vec<(usize, T)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(index) else {
                            break;
                        };
                        out.push((index, job(item)));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

/// Block while `index` is more than `AHEAD` files past what the sink has seen.
fn wait_for_room(emitted: &Mutex<usize>, progress: &Condvar, index: usize) {
    let Ok(mut done) = emitted.lock() else {
        return;
    };
    while index >= *done + AHEAD {
        match progress.wait(done) {
            Ok(guard) => done = guard,
            Err(_) => return,
        }
    }
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
            Error::new(codes::INTERNAL_PANIC,
                format!("skillmod crashed on this file ({what}); it was left unchanged. Please report it"),
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_on_one_file_fails_that_file_and_the_rest_come_back_in_order() {
        let files: Vec<PathBuf> = (0..50).map(|i| PathBuf::from(format!("f{i:02}"))).collect();
        let mut seen = Vec::new();
        let result = for_each_ordered(
            &files,
            |path, _parser| {
                if path == Path::new("f07") {
                    panic!("boom");
                }
                Ok(path.display().to_string())
            },
            |path, error| Err(format!("{}: {}", path.display(), error.code)),
            |r: std::result::Result<String, String>| seen.push(r),
        );
        assert!(result.is_ok());
        assert_eq!(seen.len(), 50);
        assert_eq!(seen[7], Err("f07: INTERNAL_PANIC".to_string()));
        assert_eq!(seen[8], Ok("f08".to_string()));
        assert!(
            seen.iter()
                .enumerate()
                .all(|(i, r)| i == 7 || r == &Ok(format!("f{i:02}")))
        );
    }
}
