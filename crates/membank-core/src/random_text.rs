//! Strings joined at random from given pieces, for the tests that hold a
//! fast path to a plain rule.

/// Endless strings of at most `longest` of `pieces`, the same for the same
/// seed (a xorshift generator: no dependency for a test's dice).
pub(crate) fn joined<'a>(
    pieces: &'a [&'a str],
    longest: u64,
    seed: u64,
) -> impl Iterator<Item = String> + 'a {
    let mut state = seed.max(1);
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    std::iter::from_fn(move || {
        let count = next() % (longest + 1);
        Some(
            (0..count)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect(),
        )
    })
}
