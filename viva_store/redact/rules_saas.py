"""Rules for SaaS tokens: chat, payments, mail, commerce and developer services."""

from __future__ import annotations

from viva_store.redact.rule import B64URL, DIGITS, HEX, UPPER_DIGITS, Rule, cases, fill, token

_GL = "gitleaks default rule"
_SLASH = r"(?:/|\\/)"  # "/" or its JSON escape "\/"

RULES: tuple[Rule, ...] = (
    Rule(
        id="slack-token",
        pattern=token(r"xox", r"(?:[abposr]|e(?:\.xox[bp])?)-\d{1,20}-[A-Za-z0-9\-]{8,250}"),
        description="Slack bot, user, app-level legacy or refresh token (xoxb-, xoxp-, xoxe-...)",
        source=f"{_GL}s 'slack-bot-token', 'slack-user-token', 'slack-legacy-token' and siblings",
        tp_example_parts=("xoxb-", fill(12, DIGITS, 61), "-", fill(13, DIGITS, 62), "-", fill(24)),
        fp_example="Bot tokens start with xoxb-, user tokens with xoxp-; xoxo-gossip is not one.",
        keywords=(
            "xoxa-",
            "xoxb-",
            "xoxp-",
            "xoxo-",
            "xoxr-",
            "xoxs-",
            "xoxe-",
            "xoxe.xoxb-",
            "xoxe.xoxp-",
        ),
    ),
    Rule(
        id="slack-app-token",
        pattern=token(r"xapp-", r"\d-[A-Za-z0-9\-]{20,250}"),
        description="Slack app-level token (xapp-1-...)",
        source="after gitleaks 'slack-app-token' (case as Slack issues it)",
        tp_example_parts=(
            "xapp-",
            "1-A0",
            fill(9, UPPER_DIGITS, 63),
            "-",
            fill(13, DIGITS, 64),
            "-",
            fill(64, HEX, 65),
        ),
        fp_example="Socket Mode needs an xapp- token.",
        keywords=("xapp-",),
    ),
    Rule(
        id="slack-webhook-url",
        pattern=(
            rf"(?:https?:{_SLASH}{_SLASH})?hooks\.slack\.com{_SLASH}(?:services|workflows|triggers)"
            rf"{_SLASH}(?:[A-Za-z0-9_+\-]|{_SLASH}){{20,300}}"
        ),
        description="Slack incoming-webhook URL (the whole URL, as gitleaks reports it)",
        source="after gitleaks 'slack-webhook-url' (also JSON-escaped slashes)",
        tp_example_parts=(
            "https://hooks.slack.com/services/T0",
            fill(9, UPPER_DIGITS, 66),
            "/B0",
            fill(9, UPPER_DIGITS, 67),
            "/",
            fill(24, seed=68),
        ),
        fp_example="Post to https://hooks.slack.com/services/ plus your webhook path.",
        keywords=("hooks.slack.com",),
    ),
    Rule(
        id="stripe-secret-key",
        pattern=token(r"sk_(?:live|test)_", r"[A-Za-z0-9]{20,250}"),
        description="Stripe secret key (sk_live_..., sk_test_...)",
        source="GitHub secret scanning pattern list (Stripe); after gitleaks 'stripe-access-token'",
        tp_example_parts=("sk_", "live_", fill(99, seed=69)),
        fp_example="Never ship sk_live_ keys to the browser.",
        keywords=("sk_live_", "sk_test_"),
    ),
    Rule(
        id="stripe-restricted-key",
        pattern=token(r"rk_(?:live|test)_", r"[A-Za-z0-9]{20,250}"),
        description="Stripe restricted key (rk_live_..., rk_test_...)",
        source="GitHub secret scanning pattern list (Stripe restricted key)",
        tp_example_parts=("rk_", "live_", fill(99, seed=70)),
        fp_example="Restricted keys (rk_live_) limit what a key may do.",
        keywords=("rk_live_", "rk_test_"),
    ),
    Rule(
        id="stripe-webhook-secret",
        pattern=token(r"whsec_", r"(?:[A-Za-z0-9+=]|\\?/){24,100}", tail=r"A-Za-z0-9+/="),
        description="Stripe webhook signing secret (whsec_...)",
        source="anthropics/claude-code #63593 (Stripe whsec_); GitHub secret scanning",
        tp_example_parts=("whsec_", fill(32, seed=71)),
        fp_example="stripe listen prints a whsec_ signing secret.",
        keywords=("whsec_",),
    ),
    Rule(
        id="sendgrid-api-key",
        pattern=token(r"SG\.", r"[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}"),
        description="SendGrid API key (SG.xxx.yyy)",
        source="after gitleaks 'sendgrid-api-token' (SendGrid's two-part form)",
        tp_example_parts=("SG", ".", fill(22, B64URL, 72), ".", fill(43, B64URL, 73)),
        fp_example="Contact SG.com or SG.Example for details.",
        keywords=("SG.",),
    ),
    Rule(
        id="twilio-api-key",
        pattern=token(r"SK", r"[0-9a-fA-F]{32}"),
        description="Twilio API key SID (SK + 32 hex)",
        source=f"{_GL} 'twilio-api-key'",
        tp_example_parts=("SK", fill(32, HEX, 74)),
        fp_example="SKILL.md files describe a skill; SKU numbers are not keys.",
        keywords=("SK",),
    ),
    Rule(
        id="telegram-bot-token",
        pattern=r":(?P<secret>AA(?<=[0-9]{5}:AA)[A-Za-z0-9_\-]{33})(?![A-Za-z0-9_\-])",
        description="Telegram bot token (123456789:AA...; the part after the colon is secret)",
        source="anthropics/claude-code #63593 (Telegram); after gitleaks 'telegram-bot-api-token'",
        tp_example_parts=(fill(10, "123456789", 75), ":", "AA", fill(33, B64URL, 76)),
        fp_example="At 16:AA the meeting starts; ratio 3:AAB.",
        keywords=(":AA",),
    ),
    Rule(
        id="discord-bot-token",
        pattern=(
            r"(?<![A-Za-z0-9_\-])[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}"
            r"\.[A-Za-z0-9_\-]{27,38}(?![A-Za-z0-9_\-])"
        ),
        description="Discord bot token (three dot-separated parts), near the word 'discord'",
        source="after gitleaks 'discord-api-token' (gated by the word discord, as there)",
        tp_example_parts=(
            "discord bot ",
            "MT",
            fill(24, B64URL, 77),
            ".",
            fill(6, B64URL, 78),
            ".",
            fill(38, B64URL, 79),
        ),
        fp_example="pip install discord.py==2.3.2",
        keywords=cases("discord"),
    ),
    Rule(
        id="discord-webhook-url",
        pattern=(
            rf"discord(?:app)?\.com{_SLASH}api{_SLASH}webhooks{_SLASH}\d{{5,25}}{_SLASH}"
            r"(?P<secret>[A-Za-z0-9_\-]{40,100})"
        ),
        description="Discord webhook URL (the token after the webhook id is secret)",
        source="Discord webhook URL format (discord.com/api/webhooks/ID/TOKEN)",
        tp_example_parts=(
            "https://discord.com/api/webhooks/",
            fill(18, DIGITS, 80),
            "/",
            fill(68, B64URL, 81),
        ),
        fp_example="See https://discord.com/api/webhooks/ in the Discord docs.",
        keywords=("discord.com", "discordapp.com"),
    ),
    Rule(
        id="shopify-token",
        pattern=token(r"shp(?:at|ss|ca|pa)_", r"[a-fA-F0-9]{32}"),
        description="Shopify access, shared-secret, custom-app or private-app token",
        source=f"{_GL}s 'shopify-access-token', 'shopify-shared-secret' and siblings",
        tp_example_parts=("shpat_", fill(32, HEX, 82)),
        fp_example="Admin API tokens begin with shpat_ .",
        keywords=("shpat_", "shpss_", "shpca_", "shppa_"),
    ),
    Rule(
        id="linear-api-key",
        pattern=token(r"lin_api_", r"[A-Za-z0-9]{40}"),
        description="Linear API key (lin_api_...)",
        source=f"{_GL} 'linear-api-key'",
        tp_example_parts=("lin_api_", fill(40, seed=83)),
        fp_example="Linear keys start with lin_api_ .",
        keywords=("lin_api_",),
    ),
    Rule(
        id="postman-api-key",
        pattern=token(r"PMAK-", r"[a-fA-F0-9]{24}-[a-fA-F0-9]{34}"),
        description="Postman API key (PMAK-...)",
        source=f"{_GL} 'postman-api-token'",
        tp_example_parts=("PMAK-", fill(24, HEX, 84), "-", fill(34, HEX, 85)),
        fp_example="Postman keys look like PMAK- then hex.",
        keywords=("PMAK-",),
    ),
    Rule(
        id="mailgun-api-key",
        pattern=token(r"key-", r"[a-f0-9]{32}"),
        description="Mailgun private API key (key- + 32 hex)",
        source="after gitleaks 'mailgun-private-api-token' (the bare key- form)",
        tp_example_parts=("key-", fill(32, HEX, 86)),
        fp_example="The primary-key-constraint and a key-value store are fine.",
        keywords=("key-",),
    ),
    Rule(
        id="square-access-token",
        pattern=token(r"EAAA", r"[A-Za-z0-9_\-]{60}"),
        description="Square production access token (EAAA...)",
        source="after gitleaks 'square-access-token' (its EAAA form)",
        tp_example_parts=("EAAA", fill(60, B64URL, 87)),
        fp_example="Square tokens begin with EAAA.",
        keywords=("EAAA",),
    ),
)
