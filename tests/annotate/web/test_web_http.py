"""The web app over HTTP (Starlette's TestClient): tokens, blindness, validation, concurrent
saves, hostile READMEs, and one round from labels to consensus through the library's files."""

from __future__ import annotations

import stat
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from annotate_study import REPOS, Study, machine_values
from starlette.testclient import TestClient
from web_round import FIELDS, Round, prepared

from miner.annotate.auditlog import read_log, verify_log
from miner.annotate.layers import imported_layers
from miner.annotate.layout import Layout
from miner.annotate.reconcile import current_resolutions, load_consensus
from miner.annotate.sheets import read_sheet
from miner.annotate.web import links
from miner.annotate.web.access import tokens_path

JSON = {"Accept": "application/json"}


def client(r: Round) -> TestClient:
    return TestClient(r.app, follow_redirects=False)


def answer(c: TestClient, r: Round, who: str, repo_id: int, **values: str) -> Any:
    """Post answers as the page's script does; `x__evidence` keys carry evidence."""
    named = dict.fromkeys(k.split("__")[0] for k in values if k != "note")
    data: dict[str, object] = {"field": list(named)}
    data.update(values)
    return c.post(f"{r.url(who)}r/{repo_id}", data=data, headers=JSON)


def sheet_rows(r: Round, who: str) -> dict[str, dict[str, str]]:
    path = Layout(r.study.annotations).sheet("main", who)
    return {cells["repo_id"]: cells for _, cells in read_sheet(path).rows}


def test_tokens_open_only_their_own_view(short_round: Round) -> None:
    c = client(short_round)
    access = short_round.app.state.web.access
    assert len({*access.annotators.values(), access.adjudicator}) == 3
    assert all(len(t) >= 32 for t in (*access.annotators.values(), access.adjudicator))
    assert c.get(short_round.url("ann")).status_code == 303
    for path in ("/a/guess/", "/a/guess/r/101", "/j/guess/", "/j/guess/status", "/"):
        assert c.get(path).status_code == 404
    ann = access.annotators["ann"]
    assert c.get(f"/j/{ann}/").status_code == 404  # an annotator is no adjudicator
    assert c.get(f"/a/{access.adjudicator}/").status_code == 404
    assert c.post("/a/guess/r/101", data={"field": "is_dl", "is_dl": "yes"}).status_code == 404
    mode = stat.S_IMODE(tokens_path(Layout(short_round.study.annotations), "main").stat().st_mode)
    assert mode == 0o600
    again = prepared_app_tokens(short_round)
    assert again == (access.annotators, access.adjudicator)  # links survive a restart
    shown = [url for _, url in links("http://127.0.0.1:8765", access)]
    assert shown[0] == f"http://127.0.0.1:8765/a/{ann}/" and shown[-1].endswith("/status")


def prepared_app_tokens(r: Round) -> tuple[dict[str, str], str]:
    from miner.annotate.web.access import round_access

    again = round_access(r.study.annotations, "main")
    return again.annotators, again.adjudicator


def test_annotator_never_sees_the_other_annotator_or_machine_labels(study: Study) -> None:
    r = prepared(study)  # every field, blind
    c = client(r)
    secret = "BOB-ONLY-NOTE"
    assert (
        answer(c, r, "bob", 101, hw_gpu="yes", hw_gpu__evidence="BOB-EVIDENCE:1 x").status_code
        == 200
    )
    assert c.post(f"{r.url('bob')}r/101", data={"note": secret}, headers=JSON).status_code == 200
    for repo_id, _, _ in REPOS:
        page = c.get(f"{r.url('ann')}r/{repo_id}").text
        assert secret not in page and "BOB-EVIDENCE" not in page
        assert 'class="machine"' not in page  # blind: no machine label
        assert "bob" not in page.lower()  # not even the other annotator's name
    assert "BOB-EVIDENCE" in c.get(f"{r.url('bob')}r/101").text


def test_prefilled_round_shows_machine_labels_and_needs_confirmation(study: Study) -> None:
    r = prepared(study, ["hw_gpu"], prefill=True)
    c = client(r)
    page = c.get(f"{r.url('ann')}r/101").text
    assert 'class="machine"' in page and "README.md:10 one NVIDIA GTX 1080 Ti" in page
    assert "0/6 repositories" in page  # pre-filled values are not answers until confirmed
    body = answer(c, r, "ann", 101, hw_gpu="yes").json()
    assert body["answered"] == ["hw_gpu"] and body["done"] == 1


def test_validation_errors_are_answered_clearly(short_round: Round) -> None:
    r, c = short_round, client(short_round)
    bad = answer(c, r, "ann", 101, frameworks="pytorchh", hw_gpu="maybe")
    assert bad.status_code == 422
    error = bad.json()["error"]
    assert "frameworks: unknown value 'pytorchh' (did you mean 'pytorch'?)" in error
    assert "hw_gpu: 'maybe' is not yes/no/unclear/n/a" in error
    assert sheet_rows(r, "ann")["101"]["hw_gpu"] == ""  # one bad value saves nothing
    mixed = answer(c, r, "ann", 101, frameworks="none;keras")
    assert "cannot be combined" in mixed.json()["error"]
    assert (
        "not a field this round asks for" in answer(c, r, "ann", 101, domain="nlp").json()["error"]
    )
    page = c.post(f"{r.url('ann')}r/101", data={"field": "hw_gpu", "hw_gpu": "maybe"})
    assert page.status_code == 422 and "is not yes/no/unclear/n/a" in page.text
    assert c.get(f"{r.url('ann')}r/999").status_code == 404
    early = c.post(f"{r.url('ann')}hand-in")
    assert early.status_code == 422 and "6 repositories still have unanswered fields" in early.text


def test_two_annotators_saving_at_once_lose_no_write(short_round: Round) -> None:
    r, c = short_round, client(short_round)
    jobs = [
        (who, repo_id, field)
        for who in ("ann", "bob")
        for repo_id, _, _ in REPOS
        for field in FIELDS
    ]
    value = {"is_dl": "yes", "frameworks": "keras;pytorch", "hw_gpu": "no"}

    def save(job: tuple[str, int, str]) -> int:
        who, repo_id, field = job
        ev = f"README.md:{repo_id % 7 + 1} {who}"
        return answer(
            c, r, who, repo_id, **{field: value[field], f"{field}__evidence": ev}
        ).status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert set(pool.map(save, jobs)) == {200}
    for who in ("ann", "bob"):
        rows = sheet_rows(r, who)
        for repo_id, _, _ in REPOS:
            row = rows[str(repo_id)]
            assert [row[f] for f in FIELDS] == [value[f] for f in FIELDS], (who, repo_id)
            assert row["hw_gpu__evidence"] == f"README.md:{repo_id % 7 + 1} {who}"


HOSTILE = """# Hostile <img src=x onerror="alert(1)">

<script>document.title = 'owned'</script>
[click](javascript:alert(2)) <a href="javascript:alert(3)" onclick="alert(4)">here</a>
<img src="https://tracker.example/pixel.png" alt="pixel">
<iframe src="https://tracker.example/frame"></iframe>
<p style="background:url(https://tracker.example/bg)" onmouseover="alert(5)">styled</p>
<svg onload="alert(6)"><circle r="4"/></svg>
"""


def test_hostile_readme_is_rendered_inert(short_round: Round) -> None:
    r, c = short_round, client(short_round)
    checkout = r.study.settings.repos / "alpha__seg-net"
    (checkout / "README.md").write_text(HOSTILE, encoding="utf-8")
    response = c.get(f"{r.url('ann')}r/101")
    page = response.text
    from bs4 import BeautifulSoup

    docs = BeautifulSoup(page, "html.parser").select_one("section.docs")
    assert docs is not None and "Hostile" in docs.text and "styled" in docs.text
    assert not docs.find_all(["script", "iframe", "svg", "object", "embed", "style"])
    for tag in docs.find_all(True):
        for name, value in tag.attrs.items():
            assert not name.startswith("on") and name not in ("style", "srcset"), (tag, name)
            assert not (tag.name == "img" and name == "src"), tag
            if name == "href":
                assert not value.lower().startswith("javascript:") and "tracker" not in value
    assert docs.find("img", alt="pixel") is not None
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "img-src 'self'" in csp and "default-src 'none'" in csp
    assert response.headers["referrer-policy"] == "same-origin"
    outside = c.get(f"{r.url('ann')}r/101?file=../../../etc/passwd").text
    assert "root:x:" not in outside
    refused = c.post(
        f"{r.url('ann')}r/101",
        data={"field": "is_dl", "is_dl": "yes"},
        headers={"Origin": "https://elsewhere.example"},
    )
    assert refused.status_code == 403


def test_round_from_browser_answers_to_consensus(short_round: Round) -> None:
    r, c = short_round, client(short_round)
    for who in ("ann", "bob"):
        for repo_id, name, _ in REPOS:
            machine = machine_values(repo_id)
            gpu = "no" if (who, name) == ("bob", "alpha/seg-net") else machine["hw_gpu"]
            saved = answer(c, r, who, repo_id, is_dl="yes", frameworks=machine["frameworks"],
                           hw_gpu=gpu, hw_gpu__evidence=f"README.md:10 {who}")  # fmt: skip
            assert saved.status_code == 200, saved.text
        assert c.post(f"{r.url(who)}hand-in").status_code == 200
    late = answer(c, r, "ann", 101, is_dl="no")
    assert late.status_code == 422 and "handed in" in late.json()["error"]
    judge = r.url("adjudicator")
    status = c.get(f"{judge}status").text
    assert "6/6" in status and "Agreement of ann and bob (6 repositories)" in status
    assert c.post(f"{judge}conflicts").status_code == 303
    page = c.get(judge).text
    assert "1 conflicts of ann and bob, 1 open" in page and "README.md:10 bob" in page
    missing = c.post(f"{judge}decide", data={"conflict_id": "101:hw_gpu", "pick": "a",
                                               "method": "discussion", "by": "cara"})  # fmt: skip
    assert missing.status_code == 422 and "give a rationale" in missing.text
    done = c.post(f"{judge}decide", data={"conflict_id": "101:hw_gpu", "pick": "a",
                                            "method": "discussion", "by": "cara",
                                            "rationale": "README names a GTX 1080 Ti"})  # fmt: skip
    assert done.status_code == 303
    root = r.study.annotations
    record = current_resolutions(root, "main")["101:hw_gpu"]
    assert (record["value"], record["by"], record["value_b"]) == ("yes", "cara", "no")
    log = read_log(Layout(root).audit_log)
    assert [e["event"] for e in log].count("import") == 2 and log[-2]["event"] == "resolve"
    assert verify_log(Layout(root).audit_log) == len(log)
    consensus = load_consensus(root)
    assert consensus.set_index("full_name").loc["alpha/seg-net", "hw_gpu"] == "yes"
    assert "1 listed, 1 decided" in c.get(f"{judge}status").text


def test_evidence_is_saved_on_its_own_with_or_without_a_value(short_round: Round) -> None:
    r, c = short_round, client(short_round)
    alone = answer(c, r, "ann", 101, hw_gpu__evidence="README.md:10 We trained on one GTX")
    assert alone.status_code == 200 and alone.json()["answered"] == []
    row = sheet_rows(r, "ann")["101"]
    assert (row["hw_gpu"], row["hw_gpu__evidence"]) == ("", "README.md:10 We trained on one GTX")
    valued = answer(c, r, "ann", 101, hw_gpu="yes", hw_gpu__evidence=row["hw_gpu__evidence"])
    assert valued.json()["answered"] == ["hw_gpu"]
    changed = answer(c, r, "ann", 101, hw_gpu__evidence="README.md:11 Download the dataset")
    assert changed.json()["answered"] == ["hw_gpu"]  # the value stays, the evidence changes
    row = sheet_rows(r, "ann")["101"]
    assert (row["hw_gpu"], row["hw_gpu__evidence"]) == ("yes", "README.md:11 Download the dataset")


def finish(c: TestClient, r: Round, who: str, gpu: dict[int, str], evidence: bool = True) -> None:
    for repo_id, _, _ in REPOS:
        value = gpu.get(repo_id, "no")
        extra = {"hw_gpu__evidence": "README.md:10 GTX"} if evidence and value == "yes" else {}
        saved = answer(c, r, who, repo_id, is_dl="yes", frameworks="pytorch", hw_gpu=value, **extra)
        assert saved.status_code == 200, saved.text


def test_hand_in_shows_what_the_import_would_flag_and_asks_to_confirm(short_round: Round) -> None:
    r, c = short_round, client(short_round)
    answer(c, r, "ann", 101, is_dl="yes")
    check = c.get(f"{r.url('ann')}hand-in").text
    assert "6 repositories with unanswered fields" in check
    assert "alpha/seg-net</a>: frameworks, hw_gpu" in check
    assert '<button type="submit" id="confirm" disabled' in check
    finish(c, r, "ann", {101: "yes", 102: "yes"}, evidence=False)
    answer(c, r, "ann", 101, hw_gpu="yes", hw_gpu__evidence="README.md:10 GTX")
    check = c.get(f"{r.url('ann')}hand-in").text
    assert "unanswered" not in check and "1 <code>yes</code> without evidence" in check
    assert "beta/Text-RNN</a>: hw_gpu" in check and "It is final" in check
    assert '<button type="submit" id="confirm"  autofocus>Hand in (final)</button>' in check
    assert "ann" not in imported_layers(r.study.annotations, "main")  # nothing imported yet
    done = c.post(f"{r.url('ann')}hand-in")
    assert done.status_code == 200 and "handed in: layer ann@main, 6 repositories" in done.text
    assert "1 `yes` in hw_gpu without evidence" in done.text
    page = c.get(f"{r.url('ann')}r/101").text
    assert 'id="save"' not in page and 'class="keys"' not in page and "Hand in" not in page
    assert "handed in · read only" in page and 'class="annotator readonly"' in page
    assert "handed in already" in c.get(f"{r.url('ann')}hand-in").text


def test_adjudicator_takes_the_machine_value_keeps_input_and_sees_the_files(
    short_round: Round,
) -> None:
    r, c = short_round, client(short_round)
    finish(c, r, "ann", {})  # ann: no GPU anywhere
    finish(c, r, "bob", {101: "no", 103: "yes"}, evidence=False)  # bob: a GPU in gamma
    for who in ("ann", "bob"):
        assert c.post(f"{r.url(who)}hand-in").status_code == 200
    judge = r.url("adjudicator")
    assert c.post(f"{judge}conflicts").status_code == 303
    page = c.get(judge).text
    assert "103:hw_gpu" in page and 'name="pick" value="m"' in page  # the machine's is offered
    wrong = {"conflict_id": "103:hw_gpu", "pick": "own", "value": "maybe", "by": "dan",
             "method": "tiebreaker", "rationale": "kept on error"}  # fmt: skip
    refused = c.post(f"{judge}decide", data=wrong)
    assert refused.status_code == 422 and "103:hw_gpu" in refused.text
    assert 'value="maybe"' in refused.text and 'value="kept on error"' in refused.text
    assert 'value="dan"' in refused.text and "<option selected>tiebreaker</option>" in refused.text
    assert 'value="own" checked' in refused.text
    machine = {"conflict_id": "103:hw_gpu", "pick": "m", "method": "discussion", "by": "cara",
               "rationale": "the README names no GPU model"}  # fmt: skip
    taken = c.post(f"{judge}decide", data=machine)
    assert taken.status_code == 303
    assert current_resolutions(r.study.annotations, "main")["103:hw_gpu"]["value"] == "no"
    fragment = c.get(f"{judge}docs/103:hw_gpu?fragment=1").text
    assert "<html" not in fragment and 'data-conflict="103:hw_gpu"' in fragment
    assert "README.md" in fragment and "File tree (3 files)" in fragment
    whole = c.get(f"{judge}docs/103:hw_gpu").text
    assert "<html" in whole and "annotate.css" in whole
    assert c.get(f"{judge}docs/999:hw_gpu").status_code == 404
    assert c.get(f"{r.url('ann')}../docs/103:hw_gpu").status_code == 404
