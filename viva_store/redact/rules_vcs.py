"""Rules for source-hosting and package-registry tokens."""

from __future__ import annotations

from viva_store.redact.rule import B64URL, HEX, Rule, fill, token

_GL = "gitleaks default rule"
_GH = "GitHub secret scanning pattern list (GitHub token formats)"
_GH_BODY = r"[A-Za-z0-9]{30,255}"
_GITLAB_OTHER = ("glptt-", "gldt-", "glrt-", "glcbt-", "glsoat-", "glffct-", "glimt-", "glft-")

RULES: tuple[Rule, ...] = (
    Rule(
        id="github-pat",
        pattern=token(r"ghp_", _GH_BODY),
        description="GitHub classic personal access token (ghp_...)",
        source=f"{_GH}; {_GL} 'github-pat'",
        tp_example_parts=("ghp_", fill(36, seed=31)),
        fp_example="Classic tokens such as ghp_ are being phased out.",
        keywords=("ghp_",),
    ),
    Rule(
        id="github-fine-grained-pat",
        pattern=token(r"github_pat_", r"[A-Za-z0-9_]{50,255}"),
        description="GitHub fine-grained personal access token (github_pat_...)",
        source=f"{_GH}; {_GL} 'github-fine-grained-pat'",
        tp_example_parts=("github_pat_", fill(22, seed=32), "_", fill(59, seed=33)),
        fp_example="Fine-grained tokens use the github_pat_ prefix.",
        keywords=("github_pat_",),
    ),
    Rule(
        id="github-oauth-token",
        pattern=token(r"gho_", _GH_BODY),
        description="GitHub OAuth access token (gho_...)",
        source=f"{_GH}; {_GL} 'github-oauth'",
        tp_example_parts=("gho_", fill(36, seed=34)),
        fp_example="gh auth login stores a gho_ token in the keyring.",
        keywords=("gho_",),
    ),
    Rule(
        id="github-app-token",
        pattern=token(r"gh[us]_", _GH_BODY),
        description="GitHub App user-to-server or installation token (ghu_..., ghs_...)",
        source=f"{_GH}; {_GL} 'github-app-token'",
        tp_example_parts=("ghs_", fill(36, seed=35)),
        fp_example="Installation tokens (ghs_) expire after an hour; ghu_ ones too.",
        keywords=("ghu_", "ghs_"),
    ),
    Rule(
        id="github-refresh-token",
        pattern=token(r"ghr_", _GH_BODY),
        description="GitHub refresh token (ghr_...)",
        source=f"{_GH}; {_GL} 'github-refresh-token'",
        tp_example_parts=("ghr_", fill(36, seed=36)),
        fp_example="A ghr_ token refreshes a user-to-server token.",
        keywords=("ghr_",),
    ),
    Rule(
        id="gitlab-pat",
        pattern=token(r"glpat-", r"[A-Za-z0-9_.\-]{20,255}"),
        description="GitLab personal access token (glpat-...)",
        source=f"{_GL} 'gitlab-pat'",
        tp_example_parts=("glpat-", fill(20, B64URL, 37)),
        fp_example="Create a glpat- token under Preferences > Access tokens.",
        keywords=("glpat-",),
    ),
    Rule(
        id="gitlab-token",
        pattern=token(r"gl", r"(?:ptt|dt|rt|cbt|soat|ffct|imt|ft)-[A-Za-z0-9_.\-]{20,255}"),
        description="Other GitLab tokens: pipeline trigger, deploy, runner, CI job, feed...",
        source=(
            f"{_GL}s 'gitlab-ptt', 'gitlab-deploy-token', 'gitlab-runner-authentication-token',"
            " 'gitlab-cicd-job-token', 'gitlab-scim-token', 'gitlab-feature-flag-client-token',"
            " 'gitlab-incoming-mail-token', 'gitlab-feed-token'"
        ),
        tp_example_parts=("glptt-", fill(40, HEX, 38)),
        fp_example="Deploy tokens (gldt-) and runner tokens (glrt-) differ.",
        keywords=_GITLAB_OTHER,
    ),
    Rule(
        id="npm-access-token",
        pattern=token(r"npm_", r"[A-Za-z0-9]{36}"),
        description="npm access token (npm_...)",
        source="after gitleaks 'npm-access-token' (lower-case npm_, as npm issues it)",
        tp_example_parts=("npm_", fill(36, seed=39)),
        fp_example="npm_config_registry=https://registry.npmjs.org/",
        keywords=("npm_",),
    ),
    Rule(
        id="pypi-upload-token",
        pattern=token(r"pypi-AgE", r"(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_\-]{50,1000}"),
        description="PyPI or TestPyPI upload token (pypi-AgEIcHlwaS5vcmc...)",
        source=f"{_GL} 'pypi-upload-token'",
        tp_example_parts=("pypi-", "AgEIcHlwaS5vcmc", fill(70, B64URL, 40)),
        fp_example="PyPI tokens (pypi-AgEI...) go in ~/.pypirc.",
        keywords=("pypi-AgE",),
    ),
)
