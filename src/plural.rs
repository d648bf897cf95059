//! Counts in words, singular or plural as the number wants: "1 file",
//! "2 files".

/// `n` and `noun`, with an `s` unless `n` is one.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_is_singular_and_every_other_number_plural() {
        assert_eq!(super::count(1, "file"), "1 file");
        assert_eq!(super::count(0, "finding"), "0 findings");
        assert_eq!(super::count(7, "segment"), "7 segments");
    }
}
