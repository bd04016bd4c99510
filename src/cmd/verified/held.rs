//! What a build writes over the session it was built from, held without a second copy of that
//! session: a run of bytes the writer hands over from the session itself (a line kept as it
//! was, the whole history a compaction appends to) is held as its place there; only the bytes
//! the build makes (a summary's records, a pruned line) are copied. `--verify` reads the result
//! back from these parts ([`Transcript::parse_parts`]) and writes them out in order, so a
//! compaction appended to a session of 100 MB holds its new records only (issue 33).
//!
//! Which bytes are the session's is told by where they are in memory, so it is exact: a writer
//! that copies them first costs memory, never correctness.
//!
//! [`Transcript::parse_parts`]: crate::transcript::load::Transcript::parse_parts

use std::io::{self, Write};
use std::ops::Range;

/// The bytes written, as pieces of the session and of what the build made.
pub struct Held<'a> {
    /// The session the build read.
    session: &'a [u8],
    /// The bytes the build made, one after the other.
    made: Vec<u8>,
    /// The output in order; every piece but the last ends at a line end.
    pieces: Vec<Piece>,
}

/// A stretch of the output.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// These bytes of the session.
    Session(Range<usize>),
    /// These bytes of `made`.
    Made(Range<usize>),
}

impl<'a> Held<'a> {
    /// Nothing written yet, over `session`.
    pub fn over(session: &'a [u8]) -> Self {
        Held {
            session,
            made: Vec::new(),
            pieces: Vec::new(),
        }
    }

    /// `bytes`, held whole (what the tests' broken writer made of an output).
    pub fn whole(bytes: Vec<u8>) -> Held<'static> {
        let pieces = vec![Piece::Made(0..bytes.len())];
        Held {
            session: &[],
            made: bytes,
            pieces,
        }
    }

    /// The bytes written, in order; every part but the last ends at a line end, so that no
    /// line spans two.
    pub fn parts(&self) -> Vec<&[u8]> {
        self.pieces
            .iter()
            .map(|piece| match piece {
                Piece::Session(range) => &self.session[range.clone()],
                Piece::Made(range) => &self.made[range.clone()],
            })
            .collect()
    }

    /// Writes the bytes held to `out`, in order.
    pub fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        self.parts().iter().try_for_each(|part| out.write_all(part))
    }

    /// Where `bytes` begin in the session, if they are some of its own.
    fn in_session(&self, bytes: &[u8]) -> Option<usize> {
        let at = (bytes.as_ptr() as usize).checked_sub(self.session.as_ptr() as usize)?;
        (at + bytes.len() <= self.session.len()).then_some(at)
    }

    /// Whether the output so far ends at a line end (or is empty). No piece is empty.
    fn at_line_start(&self) -> bool {
        let last = match self.pieces.last() {
            None => return true,
            Some(Piece::Session(range)) => self.session[range.end - 1],
            Some(Piece::Made(range)) => self.made[range.end - 1],
        };
        last == b'\n'
    }

    /// Moves the unfinished last line of a last piece of the session into `made`, where the
    /// rest of that line goes.
    fn open_last_line(&mut self) {
        let session = self.session;
        let Some(Piece::Session(range)) = self.pieces.last_mut() else {
            return;
        };
        let bytes = &session[range.clone()];
        if bytes.ends_with(b"\n") {
            return;
        }
        let start = range.start + memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
        let open = start..range.end;
        range.end = start;
        if start == range.start {
            self.pieces.pop();
        }
        self.make(&session[open]);
    }

    /// Copies `bytes` into `made`, after the output so far.
    fn make(&mut self, bytes: &[u8]) {
        let start = self.made.len();
        self.made.extend_from_slice(bytes);
        let end = self.made.len();
        match self.pieces.last_mut() {
            Some(Piece::Made(range)) if range.end == start => range.end = end,
            _ => self.pieces.push(Piece::Made(start..end)),
        }
    }
}

impl Write for Held<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if bytes.is_empty() {
            return Ok(0);
        }
        self.open_last_line();
        match self.in_session(bytes).filter(|_| self.at_line_start()) {
            Some(start) => {
                let end = start + bytes.len();
                match self.pieces.last_mut() {
                    Some(Piece::Session(range)) if range.end == start => range.end = end,
                    _ => self.pieces.push(Piece::Session(start..end)),
                }
            }
            None => self.make(bytes),
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sessions_own_lines_are_held_in_place_and_the_rest_copied() {
        let session = b"a\nb\nc\nd".to_vec();
        let mut held = Held::over(&session);
        held.write_all(&session[0..2]).unwrap();
        held.write_all(&session[2..4]).unwrap();
        held.write_all(b"X\n").unwrap();
        held.write_all(&session[6..7]).unwrap();
        held.write_all(b"\nY\n").unwrap();
        assert_eq!(held.parts().concat(), b"a\nb\nX\nd\nY\n");
        // Two lines of the session in place; the rest made, with the unfinished line of the
        // session that the bytes made end.
        assert_eq!(held.pieces, [Piece::Session(0..4), Piece::Made(0..6)]);
        assert_eq!(held.made, b"X\nd\nY\n");
    }

    #[test]
    fn no_part_ends_inside_a_line() {
        let session = b"{\"a\":1}\n{\"b\":2}\n{\"c\":".to_vec();
        let mut held = Held::over(&session);
        // Half a line of the session, then the rest of that line made; a line of the session
        // after a line made unfinished.
        held.write_all(&session[..13]).unwrap();
        held.write_all(b"9}\nZ").unwrap();
        held.write_all(&session[16..]).unwrap();
        held.write_all(b"3}\n").unwrap();
        let parts = held.parts();
        assert_eq!(
            parts.concat(),
            b"{\"a\":1}\n{\"b\":9}\nZ{\"c\":3}\n".as_slice()
        );
        for part in &parts[..parts.len() - 1] {
            assert!(part.ends_with(b"\n"), "{parts:?}");
        }
        assert_eq!(held.pieces[0], Piece::Session(0..8));
    }

    #[test]
    fn bytes_equal_to_the_sessions_but_elsewhere_are_made() {
        let session = b"a\n".to_vec();
        let copy = session.clone();
        let mut held = Held::over(&session);
        held.write_all(&copy).unwrap();
        assert_eq!(held.pieces, [Piece::Made(0..2)]);
        assert_eq!(
            Held::whole(b"x\n".to_vec()).parts(),
            vec![b"x\n".as_slice()]
        );
    }
}
