//! The country a phone number belongs to, as the numbering data tells it.

/// The country of a number in E.164 (two capital letters of ISO 3166), when the numbering data
/// tells it: `+33612345678` is FR; `+79161234567` RU and `+77011234567` KZ (one calling code, two
/// countries); an unknown calling code or a number that is not E.164 has none.
pub fn country_of(e164: &str) -> Option<String> {
    let number = phonenumber::parse(None, e164).ok()?;
    number.country().id().map(|id| id.as_ref().to_owned())
}

#[cfg(test)]
mod tests {
    use super::country_of;

    #[test]
    fn a_calling_code_shared_by_countries_is_told_apart_by_the_number() {
        assert_eq!(country_of("+33612345678").as_deref(), Some("FR"));
        assert_eq!(country_of("+79161234567").as_deref(), Some("RU"));
        assert_eq!(country_of("+77011234567").as_deref(), Some("KZ"));
        assert_eq!(country_of("+14155550123").as_deref(), Some("US"));
        assert_eq!(country_of("+16135550123").as_deref(), Some("CA"));
    }

    #[test]
    fn what_is_not_a_number_of_a_known_country_has_none() {
        assert_eq!(country_of("0612345678"), None);
        assert_eq!(country_of(""), None);
        assert_eq!(country_of("+999123456"), None);
    }
}
