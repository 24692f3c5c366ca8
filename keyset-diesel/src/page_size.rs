//! [`PageSizePolicy`]: turn a client's requested page size into a safe one.

/// A requested page size that is refused. HTTP 400 in an API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PageSizeError {
    /// Not a whole number (`"abc"`, `"2.5"`, `""`).
    #[error("page size must be a whole number")]
    NotANumber,
    /// Zero or negative. A page holds at least one row; 0 never means "all rows".
    #[error("page size must be at least 1")]
    TooSmall,
    /// Above the policy's maximum (with [`PageSizePolicy::rejecting`]).
    #[error("page size must be at most {max}")]
    TooLarge {
        /// The policy's maximum.
        max: u32,
    },
}

/// What happens to a request above the maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Overflow {
    Reject,
    Clamp,
}

/// Default and maximum page size, and what a request above the maximum gets.
///
/// * no size requested: the default;
/// * `0`, negative, or not a whole number: an error, never "all rows";
/// * above the maximum: [`PageSizeError::TooLarge`] ([`PageSizePolicy::rejecting`], the
///   default) or the maximum ([`PageSizePolicy::clamping`]); the page then reports the size it
///   used in [`crate::Page::page_size`];
/// * any size, up to `u32::MAX` and beyond: no overflow (the extra look-ahead row is added in
///   64-bit arithmetic).
///
/// ```
/// use keyset_diesel::web::{PageSizeError, PageSizePolicy};
/// let policy = PageSizePolicy::new(20, 100).expect("0 < default <= max");
/// assert_eq!(policy.resolve(None), Ok(20));
/// assert_eq!(policy.resolve(Some("50")), Ok(50));
/// assert_eq!(policy.resolve(Some("0")), Err(PageSizeError::TooSmall));
/// assert_eq!(policy.resolve(Some("2.5")), Err(PageSizeError::NotANumber));
/// assert_eq!(policy.resolve(Some("1000")), Err(PageSizeError::TooLarge { max: 100 }));
/// assert_eq!(policy.clamping().resolve(Some("1000")), Ok(100));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageSizePolicy {
    default: u32,
    max: u32,
    overflow: Overflow,
}

impl PageSizePolicy {
    /// A policy rejecting sizes above `max`. `None` unless `1 <= default <= max`.
    pub const fn new(default: u32, max: u32) -> Option<Self> {
        if default == 0 || default > max {
            return None;
        }
        Some(PageSizePolicy {
            default,
            max,
            overflow: Overflow::Reject,
        })
    }

    /// Requests above the maximum get the maximum.
    pub const fn clamping(self) -> Self {
        PageSizePolicy {
            overflow: Overflow::Clamp,
            ..self
        }
    }

    /// Requests above the maximum are refused ([`PageSizeError::TooLarge`]).
    pub const fn rejecting(self) -> Self {
        PageSizePolicy {
            overflow: Overflow::Reject,
            ..self
        }
    }

    /// The default page size.
    pub const fn default_size(&self) -> u32 {
        self.default
    }

    /// The maximum page size.
    pub const fn max_size(&self) -> u32 {
        self.max
    }

    /// The page size for a request's text parameter (`?page_size=...`), `None` if absent.
    /// Accepts an optional `+` and ASCII digits only. An empty value (`?page_size=`, what an
    /// HTML form sends for an empty field) counts as absent: the default.
    ///
    /// # Errors
    /// [`PageSizeError`] as described on the type.
    pub fn resolve(&self, requested: Option<&str>) -> Result<u32, PageSizeError> {
        let Some(text) = requested.filter(|text| !text.is_empty()) else {
            return Ok(self.default);
        };
        let (negative, digits) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(PageSizeError::NotANumber);
        }
        let significant = digits.trim_start_matches('0');
        if significant.is_empty() || negative {
            return Err(PageSizeError::TooSmall);
        }
        // More than 10 digits is above u32::MAX, hence above any maximum.
        let value = if significant.len() > 10 {
            u64::MAX
        } else {
            significant
                .parse::<u64>()
                .map_err(|_| PageSizeError::NotANumber)?
        };
        self.bound(value)
    }

    /// Like [`PageSizePolicy::resolve`], but a request that gives no size gets `remembered`
    /// (the page size a token was made with, [`DecodedToken::page_size`](crate::token::DecodedToken))
    /// instead of the default, so a client that asked for 50 rows keeps getting 50 by following
    /// tokens alone. A remembered size above today's maximum is lowered to it (it is not the
    /// client's request, so it is never refused); 0 or `None` gives the default.
    ///
    /// ```
    /// use keyset_diesel::web::PageSizePolicy;
    /// let policy = PageSizePolicy::new(20, 100).unwrap();
    /// assert_eq!(policy.resolve_or(None, Some(50)), Ok(50));
    /// assert_eq!(policy.resolve_or(Some("10"), Some(50)), Ok(10)); // the request wins
    /// assert_eq!(policy.resolve_or(None, Some(500)), Ok(100));
    /// assert_eq!(policy.resolve_or(None, None), Ok(20));
    /// ```
    ///
    /// # Errors
    /// As [`PageSizePolicy::resolve`], for the requested text only.
    pub fn resolve_or(
        &self,
        requested: Option<&str>,
        remembered: Option<u32>,
    ) -> Result<u32, PageSizeError> {
        match (requested.filter(|text| !text.is_empty()), remembered) {
            (None, Some(size)) if size > 0 => Ok(size.min(self.max)),
            _ => self.resolve(requested),
        }
    }

    /// The page size for a request's numeric parameter, `None` if absent.
    ///
    /// # Errors
    /// [`PageSizeError::TooSmall`] for 0 or less, [`PageSizeError::TooLarge`] above the
    /// maximum when rejecting.
    pub fn resolve_number(&self, requested: Option<i64>) -> Result<u32, PageSizeError> {
        match requested {
            None => Ok(self.default),
            Some(n) if n <= 0 => Err(PageSizeError::TooSmall),
            Some(n) => self.bound(n.unsigned_abs()),
        }
    }

    fn bound(&self, value: u64) -> Result<u32, PageSizeError> {
        if value <= u64::from(self.max) {
            // Fits: max is a u32.
            return Ok(value as u32);
        }
        match self.overflow {
            Overflow::Clamp => Ok(self.max),
            Overflow::Reject => Err(PageSizeError::TooLarge { max: self.max }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_policy_and_bad_input_is_a_typed_error() {
        let policy = PageSizePolicy::new(2, 3).unwrap();
        assert_eq!(policy.resolve(Some("-1")), Err(PageSizeError::TooSmall));
        assert_eq!(policy.resolve(Some("0")), Err(PageSizeError::TooSmall));
        assert_eq!(policy.resolve(Some("000")), Err(PageSizeError::TooSmall));
        assert_eq!(policy.resolve(Some("abc")), Err(PageSizeError::NotANumber));
        assert_eq!(policy.resolve(Some("2.5")), Err(PageSizeError::NotANumber));
        assert_eq!(policy.resolve(Some("")), Ok(2), "empty: the default");
        assert_eq!(
            policy.resolve_or(Some(""), Some(3)),
            Ok(3),
            "empty: the token's"
        );
        assert_eq!(policy.resolve(Some("+")), Err(PageSizeError::NotANumber));
        assert_eq!(policy.resolve(Some(" 2")), Err(PageSizeError::NotANumber));
        assert_eq!(policy.resolve(Some("2")), Ok(2));
        assert_eq!(policy.resolve(Some("+3")), Ok(3));
        assert_eq!(policy.resolve(None), Ok(2));
        for huge in [
            "1000",
            "4294967295",
            "9223372036854775807",
            "99999999999999999999999999",
        ] {
            assert_eq!(
                policy.resolve(Some(huge)),
                Err(PageSizeError::TooLarge { max: 3 })
            );
            assert_eq!(policy.clamping().resolve(Some(huge)), Ok(3));
        }
        assert_eq!(
            policy.resolve_number(Some(i64::MAX)),
            Err(PageSizeError::TooLarge { max: 3 })
        );
        assert_eq!(
            policy.resolve_number(Some(i64::MIN)),
            Err(PageSizeError::TooSmall)
        );
        assert_eq!(
            policy.clamping().resolve_number(Some(u32::MAX.into())),
            Ok(3)
        );
        assert_eq!(policy.resolve_number(None), Ok(2));
        assert!(PageSizePolicy::new(0, 3).is_none());
        assert!(PageSizePolicy::new(4, 3).is_none());
    }
}
