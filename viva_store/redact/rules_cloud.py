"""Rules for cloud-platform credentials: AWS, Google Cloud, Azure, DigitalOcean, Supabase."""

from __future__ import annotations

from viva_store.redact.rule import B64, B64URL, HEX, UPPER_DIGITS, Rule, cases, fill, token

_GL = "gitleaks default rule"
# `KEY = "value"`, `"Key": "value"`, `key: value`, also with JSON-escaped quotes.
_ASSIGN = r"""(?:\\?["'])?\s{0,4}(?::=|=>|=|:)\s{0,4}(?:\\?["'])?"""
# Base64 text, where a JSON encoder may have escaped "/" as "\/".
_B64_CHAR = r"(?:[A-Za-z0-9+=]|\\?/)"
_B64_END = r"(?![A-Za-z0-9+/=])"

RULES: tuple[Rule, ...] = (
    Rule(
        id="aws-access-key-id",
        pattern=token(r"(?:AKIA|ASIA|ABIA|ACCA)", r"[A-Z0-9]{16}"),
        description="AWS access key id (AKIA..., ASIA... for temporary credentials)",
        source="GitHub secret scanning pattern list (AWS); after gitleaks 'aws-access-token'",
        tp_example_parts=("AKIA", fill(16, UPPER_DIGITS, 41)),
        fp_example="AKIA keys belong to IAM users; ASIA keys are temporary.",
        keywords=("AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    Rule(
        id="aws-secret-access-key",
        pattern=(
            rf"(?i:secret(?:[_-]?access)?[_-]?key){_ASSIGN}(?P<secret>{_B64_CHAR}{{40}}){_B64_END}"
        ),
        description="AWS secret access key in an assignment (aws_secret_access_key = ...)",
        source="GitHub secret scanning pattern list (AWS secret access key, paired context)",
        tp_example_parts=("aws_secret_access_key = ", fill(40, B64, 42)),
        fp_example="aws_secret_access_key = ${AWS_SECRET}",
        keywords=cases("secret"),
        anchored=True,
    ),
    Rule(
        id="aws-session-token",
        pattern=(
            rf"(?i:session[_-]?token|security[_-]token){_ASSIGN}"
            rf"(?P<secret>{_B64_CHAR}{{100,4096}}){_B64_END}"
        ),
        description="AWS session token (aws_session_token, SessionToken, X-Amz-Security-Token)",
        source="AWS STS credential output; trufflehog AWS session detector (format only)",
        tp_example_parts=("AWS_SESSION_TOKEN=", fill(300, B64, 43)),
        fp_example="aws_session_token is only set for temporary credentials.",
        keywords=(
            *cases("session_token", "sessiontoken", "security-token", "security_token"),
            "SessionToken",
            "sessionToken",
            "Security-Token",
        ),
        anchored=True,
    ),
    Rule(
        id="aws-bedrock-short-term-api-key",
        pattern=token(
            r"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t",
            rf"{_B64_CHAR}{{20,16000}}",
            tail=r"A-Za-z0-9+/=",
        ),
        description="Amazon Bedrock short-term API key (a presigned URL, base64, whole token)",
        source="after gitleaks 'aws-amazon-bedrock-api-key-short-lived' (the prefix only there)",
        tp_example_parts=(
            "bedrock-api-key-",
            "YmVkcm9jay5hbWF6b25hd3MuY29t",
            fill(600, B64, 54),
            "==",
        ),
        fp_example="Short-term Bedrock keys start with bedrock-api-key- and expire in 12 hours.",
        keywords=("bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t",),
    ),
    Rule(
        id="google-api-key",
        pattern=token(r"AIza", r"[A-Za-z0-9_\-]{35}"),
        description="Google API key (AIza...)",
        source=f"{_GL} 'gcp-api-key'; GitHub secret scanning pattern list (Google)",
        tp_example_parts=("AI", "za", fill(35, B64URL, 44)),
        fp_example="AIzaSy is how Google API keys start.",
        keywords=("AIza",),
    ),
    Rule(
        id="google-oauth-client-secret",
        pattern=token(r"GOCSPX-", r"[A-Za-z0-9_\-]{28}"),
        description="Google OAuth client secret (GOCSPX-...)",
        source="GitHub secret scanning pattern list (Google OAuth client secret)",
        tp_example_parts=("GOCSPX-", fill(28, B64URL, 45)),
        fp_example="Client secrets now start with GOCSPX- .",
        keywords=("GOCSPX-",),
    ),
    Rule(
        id="google-oauth-access-token",
        pattern=token(r"ya29\.", r"[A-Za-z0-9_\-]{30,2048}"),
        description="Google OAuth access token (ya29....)",
        source="GitHub secret scanning pattern list (Google OAuth access token)",
        tp_example_parts=("ya29", ".", fill(120, B64URL, 46)),
        fp_example="ya29.a0 tokens expire after an hour.",
        keywords=("ya29.",),
    ),
    Rule(
        id="gcp-service-account-key",
        pattern=(
            r"""private_key\\*["']\s{0,4}:\s{0,4}\\*["']"""
            r"(?P<secret>(?:[A-Za-z0-9+/=\s:,.\-]|\\+[nrt/]){40,16000})"
        ),
        description="private_key field of a Google Cloud service-account JSON key file",
        source="anthropics/claude-code #63593 (GCP service-account JSON key files)",
        tp_example_parts=('"private_key": "', fill(64, B64, 47), "\\n", fill(64, B64, 48), '"'),
        fp_example='"private_key_id": "the id is not the key"',
        keywords=("private_key",),
        anchored=True,
    ),
    Rule(
        id="azure-storage-account-key",
        pattern=rf"AccountKey=(?P<secret>{_B64_CHAR}{{40,120}}){_B64_END}",
        description="Azure storage account key in a connection string (AccountKey=...)",
        source="GitHub secret scanning pattern list (Azure Storage account key)",
        tp_example_parts=(
            "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=",
            fill(86, B64, 49),
            "==;EndpointSuffix=core.windows.net",
        ),
        fp_example="AccountKey=<storage account key>",
        keywords=("AccountKey=",),
    ),
    Rule(
        id="azure-shared-access-key",
        pattern=rf"SharedAccessKey=(?P<secret>{_B64_CHAR}{{20,120}}){_B64_END}",
        description="Azure Service Bus / Event Hubs / IoT Hub shared access key",
        source="GitHub secret scanning pattern list (Azure SAS connection strings)",
        tp_example_parts=(
            "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;",
            "SharedAccessKey=",
            fill(43, B64, 50),
            "=",
        ),
        fp_example="SharedAccessKeyName=RootManageSharedAccessKey",
        keywords=("SharedAccessKey=",),
    ),
    Rule(
        id="digitalocean-token",
        pattern=token(r"do[opr]_v1_", r"[a-f0-9]{64}"),
        description="DigitalOcean personal, OAuth or refresh token (dop_v1_...)",
        source=f"{_GL}s 'digitalocean-pat', 'digitalocean-access-token'",
        tp_example_parts=("dop_", "v1_", fill(64, HEX, 51)),
        fp_example="DigitalOcean tokens start with dop_v1_ .",
        keywords=("dop_v1_", "doo_v1_", "dor_v1_"),
    ),
    Rule(
        id="supabase-access-token",
        pattern=token(r"sbp_", r"[a-f0-9]{40}"),
        description="Supabase personal access token (sbp_...)",
        source="anthropics/claude-code #63593 (Supabase sbp_); GitHub secret scanning",
        tp_example_parts=("sbp_", fill(40, HEX, 52)),
        fp_example="supabase login stores an sbp_ token.",
        keywords=("sbp_",),
    ),
    Rule(
        id="supabase-secret-key",
        pattern=token(r"sb_secret_", r"[A-Za-z0-9_\-]{20,100}"),
        description="Supabase secret API key (sb_secret_...)",
        source="Supabase API key format (sb_publishable_ / sb_secret_)",
        tp_example_parts=("sb_secret_", fill(32, B64URL, 53)),
        fp_example="sb_secret_ keys replace the service_role key.",
        keywords=("sb_secret_",),
    ),
)
