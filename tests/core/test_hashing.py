"""The suffix must be byte-identical to kustomize's configMapGenerator (api/hasher in kustomize)."""

import hashlib
import json

import pytest

from krmfn.core.naming import hashing

# Worked examples from kustomize's own tests.
KUSTOMIZE_CASES = [
    (None, None, '{"data":"","kind":"ConfigMap","name":""}', "6ct58987ht"),
    ({"one": ""}, None, '{"data":{"one":""},"kind":"ConfigMap","name":""}', "9g67k2htb6"),
    (None, {"one": ""}, '{"binaryData":{"one":""},"data":"","kind":"ConfigMap","name":""}', "6mtk2m274t"),
    ({"one": ""}, {"two": ""}, '{"binaryData":{"two":""},"data":{"one":""},"kind":"ConfigMap","name":""}', "698h7c7t9m"),
    ({"crisis": "true", "fruit": "Indian Gooseberry", "year": "2020"}, None,
     '{"data":{"crisis":"true","fruit":"Indian Gooseberry","year":"2020"},"kind":"ConfigMap","name":""}', "79t79mt227"),
]


@pytest.mark.parametrize("data,binary,encoded,suffix", KUSTOMIZE_CASES)
def test_kustomize_worked_examples(data, binary, encoded, suffix):
    assert hashing.encode_configmap(data, binary) == encoded
    assert hashing.suffix("kustomize", data, binary) == suffix


def test_empty_data_map_differs_from_absent_data():
    assert hashing.encode_configmap({}, None) == '{"data":{},"kind":"ConfigMap","name":""}'
    assert hashing.suffix("kustomize", {}, None) != hashing.suffix("kustomize", None, None)


def test_empty_binary_data_map_is_still_encoded():
    assert hashing.encode_configmap(None, {}) == '{"binaryData":{},"data":"","kind":"ConfigMap","name":""}'


@pytest.mark.parametrize("text,go", [
    ("<b>&amp;</b>", r'"\u003cb\u003e\u0026amp;\u003c/b\u003e"'),
    ("line\u2028sep\u2029", r'"line\u2028sep\u2029"'),
    ("tab\tnl\ncr\r", r'"tab\tnl\ncr\r"'),
    ("bell\x07 bs\x08 ff\x0c", r'"bell\u0007 bs\b ff\f"'),  # Go 1.22+: \b and \f short
    ('quote" back\\', r'"quote\" back\\"'),
    ("back\\b and \\f", r'"back\\b and \\f"'),
    ("ünï 😀 \x7f", '"ünï 😀 \x7f"'),
])
def test_go_json_string_escaping(text, go):
    assert hashing.encode_configmap({"k": text}, None) == '{"data":{"k":' + go + '},"kind":"ConfigMap","name":""}'


def test_keys_sorted_by_code_point_like_go():
    enc = hashing.encode_configmap({"b": "1", "a": "2", "B": "3", "é": "4", "": "5"}, None)
    assert enc == '{"data":{"":"5","B":"3","a":"2","b":"1","é":"4"},"kind":"ConfigMap","name":""}'


def test_suffix_alphabet_has_no_vowels_or_confusable_digits():
    for i in range(200):
        s = hashing.suffix("kustomize", {"k": str(i)}, None)
        assert len(s) == 10 and set(s) <= set("2456789bcdfghkmt")


def test_sha256_algorithm_is_plain_hex_over_the_same_encoding():
    enc = hashing.encode_configmap({"a": "b"}, None)
    assert hashing.suffix("sha256", {"a": "b"}, None) == hashlib.sha256(enc.encode()).hexdigest()[:16]


def test_encoding_agrees_with_python_json_where_go_and_python_agree():
    data = {"k%d" % i: "value %d" % i for i in range(20)}
    py = json.dumps({"data": data, "kind": "ConfigMap", "name": ""}, sort_keys=True, separators=(",", ":"))
    assert hashing.encode_configmap(data, None) == py


def test_unknown_algorithm_is_refused():
    with pytest.raises(ValueError, match="unknown hash algorithm"):
        hashing.suffix("md5", {}, None)
