//! Reading a file that someone else may have written (a database, a
//! report, a raw record, an OSACA base file, an assembly file): never more
//! than a bound of bytes. The bound is checked while reading, not only on
//! the file's size first: a FIFO, `/dev/zero` or a file that grows has no
//! size to check, and reading it whole would take all memory.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// The text of `path`, or `None` when it holds more than `max` bytes (as
/// much as that is read, no more). Not UTF-8: an error of kind
/// `InvalidData`, as [`std::fs::read_to_string`] gives.
pub fn read_at_most(path: &Path, max: u64) -> io::Result<Option<String>> {
    let file = File::open(path)?;
    if file.metadata().is_ok_and(|m| m.is_file() && m.len() > max) {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Ok(None);
    }
    text(bytes).map(Some)
}

/// The first line of `path` (without its line break), or `None` when it
/// has none within `max` bytes.
pub fn first_line(path: &Path, max: u64) -> io::Result<Option<String>> {
    let mut line = Vec::new();
    BufReader::new(File::open(path)?.take(max)).read_until(b'\n', &mut line)?;
    if line.last() != Some(&b'\n') {
        return Ok(None);
    }
    line.pop();
    text(line).map(Some)
}

/// `bytes` as text; not UTF-8: an error of kind `InvalidData`.
fn text(bytes: Vec<u8>) -> io::Result<String> {
    String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// `n` bytes as a reader reads a bound: `64 MiB`, `512 KiB`.
pub fn size(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{} MiB", n >> 20)
    } else {
        format!("{} KiB", n >> 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str, text: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("winic-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_file_within_the_bound_is_read_and_one_over_it_is_not() {
        let path = scratch("ten", b"0123456789");
        assert_eq!(
            read_at_most(&path, 10).unwrap().as_deref(),
            Some("0123456789")
        );
        assert_eq!(read_at_most(&path, 9).unwrap(), None);
        let bad = scratch("latin1", b"caf\xe9");
        assert_eq!(
            read_at_most(&bad, 10).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        assert_eq!(
            read_at_most(Path::new("/nonexistent/winic"), 10)
                .unwrap_err()
                .kind(),
            io::ErrorKind::NotFound
        );
    }

    /// `/dev/zero` has no end and reports no size: the bound ends it.
    #[test]
    fn an_endless_file_stops_at_the_bound() {
        let zero = Path::new("/dev/zero");
        if zero.exists() {
            assert_eq!(read_at_most(zero, 1 << 16).unwrap(), None);
            assert_eq!(first_line(zero, 1 << 16).unwrap(), None);
        }
    }

    #[test]
    fn a_first_line_needs_its_line_break_within_the_bound() {
        let path = scratch("lines", b"{\"cpu\":\"x\"}\nsecond\n");
        assert_eq!(
            first_line(&path, 64).unwrap().as_deref(),
            Some("{\"cpu\":\"x\"}")
        );
        assert_eq!(first_line(&path, 5).unwrap(), None);
        assert_eq!(size(64 << 20), "64 MiB");
        assert_eq!(size(512 << 10), "512 KiB");
    }
}
