//! Date and date-time answers: `YYYY-MM-DD` calendar days and RFC 3339 instants, checked by
//! hand so this leaf crate stays free of a date library.

/// `YYYY-MM-DD`, a day that exists (leap years included).
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (num(&b[0..4]), num(&b[5..7]), num(&b[8..10]))
    else {
        return false;
    };
    (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month)
}

/// RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; `T` and `Z` in either
/// case, seconds up to 60 (a leap second).
pub fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 20 || !s.is_char_boundary(10) || !is_date(&s[..10]) {
        return false;
    }
    if !matches!(b[10], b'T' | b't') || b[13] != b':' || b[16] != b':' {
        return false;
    }
    let (Some(h), Some(m), Some(sec)) = (num(&b[11..13]), num(&b[14..16]), num(&b[17..19])) else {
        return false;
    };
    if h > 23 || m > 59 || sec > 60 {
        return false;
    }
    let mut rest = &b[19..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let digits = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        rest = &frac[digits..];
    }
    match rest {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            matches!((num(&[*h1, *h2]), num(&[*m1, *m2])), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
        _ => false,
    }
}

fn num(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |n, d| {
        d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
    })
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}
