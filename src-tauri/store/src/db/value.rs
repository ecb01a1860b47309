//! Values as both stores take and give them: SQLite's five kinds (null, integer, real, text,
//! blob). A parameter is anything that can say which of them it is ([`Param`]); a column is read
//! back into anything that can be made from one ([`FromValue`]). PostgreSQL's stricter types are
//! met at its edge (see `super::pg`), so the same SQL and the same Rust read both stores.

/// One value, borrowed: a parameter on its way in, or a column on its way out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
}

/// A query's parameter.
pub trait Param {
    fn value(&self) -> Value<'_>;
}

macro_rules! int_param {
    ($($t:ty),*) => {$(
        impl Param for $t {
            fn value(&self) -> Value<'_> {
                Value::Int(i64::from(*self))
            }
        }
    )*};
}
int_param!(i8, i16, i32, i64, u8, u16, u32);

impl Param for bool {
    fn value(&self) -> Value<'_> {
        Value::Int(i64::from(*self))
    }
}

impl Param for f64 {
    fn value(&self) -> Value<'_> {
        Value::Real(*self)
    }
}

impl Param for str {
    fn value(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl Param for String {
    fn value(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl Param for [u8] {
    fn value(&self) -> Value<'_> {
        Value::Blob(self)
    }
}

impl Param for Vec<u8> {
    fn value(&self) -> Value<'_> {
        Value::Blob(self)
    }
}

impl<T: Param + ?Sized> Param for &T {
    fn value(&self) -> Value<'_> {
        (**self).value()
    }
}

impl<T: Param> Param for Option<T> {
    fn value(&self) -> Value<'_> {
        self.as_ref().map_or(Value::Null, Param::value)
    }
}

impl Param for Value<'_> {
    fn value(&self) -> Value<'_> {
        *self
    }
}

/// What a column is read back into. The error says what was found instead.
pub trait FromValue: Sized {
    fn from_value(v: Value<'_>) -> Result<Self, String>;
}

fn found(v: Value<'_>) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Int(i) => format!("the integer {i}"),
        Value::Real(r) => format!("the real {r}"),
        Value::Text(_) => "text".into(),
        Value::Blob(b) => format!("a blob of {} bytes", b.len()),
    }
}

impl FromValue for i64 {
    fn from_value(v: Value<'_>) -> Result<i64, String> {
        match v {
            Value::Int(i) => Ok(i),
            other => Err(format!("an integer was expected, not {}", found(other))),
        }
    }
}

macro_rules! narrow_int {
    ($($t:ty),*) => {$(
        impl FromValue for $t {
            fn from_value(v: Value<'_>) -> Result<$t, String> {
                let i = i64::from_value(v)?;
                <$t>::try_from(i).map_err(|_| format!("{i} is out of range for {}", stringify!($t)))
            }
        }
    )*};
}
narrow_int!(i32, u8, u16, u32, u64, usize);

impl FromValue for bool {
    fn from_value(v: Value<'_>) -> Result<bool, String> {
        Ok(i64::from_value(v)? != 0)
    }
}

impl FromValue for f64 {
    fn from_value(v: Value<'_>) -> Result<f64, String> {
        match v {
            Value::Real(r) => Ok(r),
            // SQLite gives an integer for a REAL column's whole number; sums of integers too.
            Value::Int(i) => Ok(i as f64),
            other => Err(format!("a real was expected, not {}", found(other))),
        }
    }
}

impl FromValue for String {
    fn from_value(v: Value<'_>) -> Result<String, String> {
        match v {
            Value::Text(t) => Ok(t.to_owned()),
            other => Err(format!("text was expected, not {}", found(other))),
        }
    }
}

impl FromValue for Vec<u8> {
    fn from_value(v: Value<'_>) -> Result<Vec<u8>, String> {
        match v {
            Value::Blob(b) => Ok(b.to_vec()),
            other => Err(format!("a blob was expected, not {}", found(other))),
        }
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: Value<'_>) -> Result<Option<T>, String> {
        match v {
            Value::Null => Ok(None),
            v => T::from_value(v).map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narrow_integer_out_of_its_range_is_an_error_and_not_a_wrapped_number() {
        assert_eq!(u8::from_value(Value::Int(255)), Ok(255));
        assert!(u8::from_value(Value::Int(256)).unwrap_err().contains("out of range"));
        assert!(u32::from_value(Value::Int(-1)).is_err());
    }

    #[test]
    fn null_reads_as_none_and_is_an_error_where_a_value_is_required() {
        assert_eq!(Option::<i64>::from_value(Value::Null), Ok(None));
        assert_eq!(Option::<String>::from_value(Value::Text("a")), Ok(Some("a".into())));
        assert!(i64::from_value(Value::Null).unwrap_err().contains("null"));
        assert!(String::from_value(Value::Int(3)).unwrap_err().contains("the integer 3"));
    }

    #[test]
    fn parameters_say_their_kind() {
        assert_eq!(true.value(), Value::Int(1));
        assert_eq!(7u32.value(), Value::Int(7));
        assert_eq!(Some("x").value(), Value::Text("x"));
        assert_eq!(None::<i64>.value(), Value::Null);
        assert_eq!(vec![1u8, 2].value(), Value::Blob(&[1, 2]));
    }
}
