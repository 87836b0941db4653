"""`curllm_core.scrub`: the known secrets (credential environment variables, added values) become
``***`` in text and in JSON-like data, keys included; nothing else changes."""

from __future__ import annotations

from curllm_core import scrub

KEY = "sk-test-0123456789abcdef"


def test_credential_variables_are_scrubbed(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-9876543210")
    assert scrub.scrub(f"Authorization: Bearer {KEY}") == "Authorization: Bearer ***"
    assert scrub.scrub("token tok-9876543210 here") == "token *** here"


def test_other_variables_and_short_values_are_not_secrets(monkeypatch):
    monkeypatch.setenv("CURLLM_DEFAULT_URL", "https://shop.example/listing")  # not credential-like
    monkeypatch.setenv("SHORT_TOKEN", "abc")  # too short: would eat ordinary words
    text = "https://shop.example/listing abc"
    assert scrub.scrub(text) == text


def test_a_changed_environment_is_seen(monkeypatch):
    monkeypatch.delenv("LATE_SECRET", raising=False)
    assert scrub.scrub("late-secret-value") == "late-secret-value"
    monkeypatch.setenv("LATE_SECRET", "late-secret-value")
    assert scrub.scrub("late-secret-value") == "***"


def test_the_longest_secret_is_replaced_whole(monkeypatch):
    monkeypatch.setenv("A_PASSWORD", "password1234")
    monkeypatch.setenv("B_PASSWORD", "password1234-and-more")
    assert scrub.scrub("x password1234-and-more y") == "x *** y"


def test_data_is_scrubbed_keys_included_and_unchanged_data_is_the_same_object(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", KEY)
    data = {"plan": [{"description": f"use {KEY}"}], KEY: 1, "n": 3, "t": (KEY,)}
    assert scrub.scrub_data(data) == {"plan": [{"description": "use ***"}], "***": 1, "n": 3, "t": ["***"]}
    clean = {"products": [{"name": "a"}]}
    monkeypatch.delenv("HF_TOKEN")
    assert scrub.scrub_data(clean) is clean or scrub.scrub_data(clean) == clean


def test_added_values_are_secrets_from_then_on():
    cookie = "session-cookie-value-42"
    assert scrub.scrub(cookie) == cookie
    scrub.add(cookie)
    scrub.add("short")  # ignored: too short
    assert scrub.scrub(f"cookie={cookie}; short") == "cookie=***; short"
    assert cookie in scrub.known() and "short" not in scrub.known()


def test_a_sessions_cookie_values_are_secrets_and_nothing_else_of_it():
    state = {
        "cookies": [
            {"name": "sid", "value": "cookie-value-of-a-session-7"},
            {"name": "odd", "value": 12345678901},  # not text: nothing to scrub
            "not a cookie",
        ],
        "origins": [],
    }
    scrub.add_cookies(state)
    scrub.add_cookies({})  # a state without cookies
    assert scrub.scrub("sid=cookie-value-of-a-session-7; name sid") == "sid=***; name sid"
    assert "12345678901" not in scrub.known()
