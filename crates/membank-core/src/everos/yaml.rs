//! YAML read the way PyYAML's `safe_load` reads it where the two differ
//! on what a memory root holds: a key written twice in one mapping is not
//! an error, the later value replaces the earlier one (keeping the key's
//! first position, as a Python dict does).

use std::fmt;

use serde::de::{
    self, Deserialize, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use yaml_serde::value::{Tag, TaggedValue};
use yaml_serde::{Mapping, Value};

/// A YAML value whose mappings take the last of duplicate keys.
pub(crate) struct LastKeyWins(pub Value);

impl<'de> Deserialize<'de> for LastKeyWins {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(LastKeyWinsVisitor)
            .map(LastKeyWins)
    }
}

struct LastKeyWinsVisitor;

impl<'de> Visitor<'de> for LastKeyWinsVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Number(i.into()))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Value, E> {
        Ok(Value::Number(u.into()))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Value, E> {
        Ok(Value::Number(f.into()))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        LastKeyWins::deserialize(d).map(|v| v.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(LastKeyWins(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Sequence(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut mapping = Mapping::new();
        while let Some(LastKeyWins(key)) = map.next_key()? {
            let LastKeyWins(value) = map.next_value()?;
            mapping.insert(key, value);
        }
        Ok(Value::Mapping(mapping))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let (tag, contents): (String, _) = data.variant()?;
        if tag.is_empty() {
            return Err(de::Error::custom("empty YAML tag is not allowed"));
        }
        let LastKeyWins(value) = contents.newtype_variant()?;
        Ok(Value::Tagged(Box::new(TaggedValue {
            tag: Tag::new(tag),
            value,
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(yaml: &str) -> Value {
        yaml_serde::from_str::<LastKeyWins>(yaml).unwrap().0
    }

    #[test]
    fn the_last_of_duplicate_keys_wins_in_its_first_place() {
        let v = read("a: 1\nb: 2\na: 3\n");
        let m = v.as_mapping().unwrap();
        let keys: Vec<&str> = m.keys().map(|k| k.as_str().unwrap()).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(m.get("a").and_then(Value::as_u64), Some(3));
        let nested = read("outer:\n  x: old\n  x: new\nlist: [{k: 1, k: 2}]\n");
        assert_eq!(nested["outer"]["x"].as_str(), Some("new"));
        assert_eq!(nested["list"][0]["k"].as_u64(), Some(2));
    }

    #[test]
    fn without_duplicates_it_reads_what_the_parser_reads() {
        for yaml in [
            "id: s\ncreated_at: &id001 2026-06-02 12:00:00+00:00\nupdated_at: *id001\n",
            "date: '2026-06-01'\nn: 3\nf: 1.5\nt: true\nz: ~\nl: [a, 'b']\n",
            "tagged: !custom value\nblock: |\n  two\n  lines\n",
        ] {
            assert_eq!(
                read(yaml),
                yaml_serde::from_str::<Value>(yaml).unwrap(),
                "{yaml}"
            );
        }
    }
}
