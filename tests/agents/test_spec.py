"""Agent specs parsed once (agents/bots/spec.py): every form, its canonical text, and what is refused."""

import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.bots.names import ALL_SEEING, CATALOGUE, ISMCTS, NETWORKS, PLAYOUTS, SEARCH, SELFPLAY_SEARCH
from agents.bots.registry import AgentSpecError as RegistryAgentSpecError
from agents.bots.registry import make_agent, names_code
from agents.bots.search import ISMCTSSettings, SearchSettings, SelfPlaySearchSettings
from agents.bots.spec import (
    MAX_SPEC_LENGTH,
    AgentSpec,
    AgentSpecError,
    SpecKind,
    index_of,
    parse_distinct,
    parse_list,
)

EVERY_FORM = [
    ("random", SpecKind.BUILTIN),
    ("heuristic", SpecKind.BUILTIN),
    ("heuristic-tuned", SpecKind.BUILTIN),
    ("weights/tuned.json", SpecKind.WEIGHT_SET),
    ("gubs-net", SpecKind.NETWORK),
    ("gubs-net:sample", SpecKind.NETWORK),
    ("ppo-2p", SpecKind.NETWORK),
    ("ppo-4p:sample", SpecKind.NETWORK),
    ("runs/gubs/model.zip", SpecKind.MODEL_FILE),
    ("runs/gubs/model.zip:sample", SpecKind.MODEL_FILE),
    ("policy.npz", SpecKind.MODEL_FILE),
    ("policy.npz:sample", SpecKind.MODEL_FILE),
    ("search", SpecKind.SEARCHER),
    ("search:worlds=64,top=4,base=gubs-net", SpecKind.SEARCHER),
    ("search-all-seeing:top=2", SpecKind.SEARCHER),
    ("ismcts", SpecKind.SEARCHER),
    ("ismcts:iterations=2000,c=0.5", SpecKind.SEARCHER),
    ("package.module:ClassName", SpecKind.CODE),
]


@pytest.mark.parametrize(("text", "kind"), EVERY_FORM)
def test_every_form_parses_to_its_kind_and_round_trips(text, kind):
    spec = AgentSpec.parse(text)
    assert spec.kind is kind
    assert str(spec) == text  # these are already canonical
    assert AgentSpec.parse(str(spec)) == spec
    assert AgentSpec.parse(f"  {text}\t") == spec  # surrounding whitespace is no part of it
    assert AgentSpec.of(spec) is spec and AgentSpec.of(text) == spec


@pytest.mark.parametrize(("text", "kind"), EVERY_FORM)
def test_names_code_only_for_module_class(text, kind):
    """What a run file may hold (data) and what it may not (code)."""
    assert AgentSpec.parse(text).names_code is (kind is SpecKind.CODE)
    assert names_code(text) is (kind is SpecKind.CODE)


def test_the_error_is_the_registrys():
    assert RegistryAgentSpecError is AgentSpecError and issubclass(AgentSpecError, ValueError)


def test_search_settings_are_canonical_so_equal_specs_build_the_same_agent():
    """Settings are kept as the values that differ from the defaults, in the settings' field order."""
    assert AgentSpec.parse("search:worlds=64,top=4") == AgentSpec.parse("search:top=4,worlds=64")
    assert str(AgentSpec.parse("search:top=4, worlds=64")) == "search:worlds=64,top=4"
    assert AgentSpec.parse("search:worlds=512") == AgentSpec.parse("search") == AgentSpec.parse("search:")
    assert str(AgentSpec.parse("search:z=1.0")) == "search:z=1"
    assert str(AgentSpec.parse("ismcts:c=0.50")) == "ismcts:c=0.5"
    assert AgentSpec.parse("search:z=2.50") == AgentSpec.parse("search")
    assert AgentSpec.parse("search:top=4") != AgentSpec.parse("search-all-seeing:top=4")
    assert len({AgentSpec.parse(t) for t in ("search:worlds=64,top=4", "search:top=4,worlds=64", "search")}) == 2


def test_the_parsed_settings_are_the_settings_classes():
    assert AgentSpec.parse("search:worlds=64,top=4").search_settings == SearchSettings(worlds=64, top=4)
    assert AgentSpec.parse("ismcts").search_settings == ISMCTSSettings()
    assert AgentSpec.parse("random").search_settings is None


@st.composite
def search_specs(draw: st.DrawFn) -> str:
    """A valid search or ismcts spec: any subset of its settings, in any order, with values in their bounds.

    A search whose playouts are its base network's (``rollout=base``, the default of ``selfplay-search``) needs a
    base with a playout policy and takes no ``leaf`` or ``prior``: those settings are drawn accordingly.
    """
    name = draw(st.sampled_from([SEARCH, SELFPLAY_SEARCH, ALL_SEEING, ISMCTS]))
    settings_class = {ISMCTS: ISMCTSSettings, SELFPLAY_SEARCH: SelfPlaySearchSettings}.get(name, SearchSettings)
    names = draw(st.permutations([f.name for f in fields(settings_class)]))
    chosen = names[: draw(st.integers(0, len(names)))]
    values: dict[str, str] = {}
    for key in chosen:
        if key in settings_class.WORDS:
            values[key] = draw(st.sampled_from(settings_class.WORDS[key]))
        else:
            low, high = settings_class.LIMITS[key]
            if key in settings_class.FLOATS:
                values[key] = repr(draw(st.floats(low, high, allow_nan=False)))
            else:
                values[key] = str(draw(st.integers(int(low), int(high))))
    if values.get("rollout", getattr(settings_class(), "rollout", None)) == "base":
        if "base" in values or name != SELFPLAY_SEARCH:
            values["base"] = draw(st.sampled_from(sorted(PLAYOUTS)))
        for cut in ("leaf", "prior"):
            values.pop(cut, None)
    parts = [f"{key}={value}" for key, value in values.items()]
    return f"{name}:{','.join(parts)}" if parts else name


@given(search_specs())
def test_every_search_spec_round_trips(text):
    spec = AgentSpec.parse(text)
    assert AgentSpec.parse(str(spec)) == spec
    assert spec.search_settings == AgentSpec.parse(str(spec)).search_settings
    assert spec.is_search is (spec.name != ISMCTS) and not spec.names_code


_PATH_CHARACTERS = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp", "Cf", "Co", "Cn", "Zs"))


@given(
    st.lists(st.text(_PATH_CHARACTERS, min_size=1, max_size=12), min_size=1, max_size=4),
    st.sampled_from([".zip", ".npz", ".json"]),
    st.booleans(),
)
def test_every_path_round_trips_as_written(parts, suffix, sample):
    text = "/".join(parts) + suffix
    if text.partition(":")[0] in (SEARCH, ALL_SEEING, ISMCTS):
        return  # a search name before a colon starts a search spec, whatever follows
    sample = sample and suffix != ".json"
    spec = AgentSpec.parse(text + (":sample" if sample else ""))
    assert spec.kind is (SpecKind.WEIGHT_SET if suffix == ".json" else SpecKind.MODEL_FILE)
    assert spec.path == Path(text) and spec.sample is sample and not spec.names_code
    assert AgentSpec.parse(str(spec)) == spec


def test_model_file_is_the_networks_file():
    for name in NETWORKS:
        assert AgentSpec.parse(f"{name}:sample").model_file == CATALOGUE[name].path
    assert AgentSpec.parse("runs/x/model.zip:sample").model_file == Path("runs/x/model.zip")
    for text in ("heuristic", "w.json", "search:base=gubs-net", "pkg:Cls"):
        assert AgentSpec.parse(text).model_file is None


def test_model_file_specs_from_paths():
    assert AgentSpec.for_model_file(Path("runs/a/model.zip")) == AgentSpec.parse("runs/a/model.zip")
    assert AgentSpec.for_model_file("p.npz", sample=True) == AgentSpec.parse("p.npz:sample")
    with pytest.raises(AgentSpecError, match="not a model file"):
        AgentSpec.for_model_file("weights.json")


def test_which_specs_search_and_see_everything():
    assert AgentSpec.parse("search:worlds=8").is_search and AgentSpec.parse(ALL_SEEING).is_search
    assert not AgentSpec.parse("ismcts").is_search and AgentSpec.parse("ismcts").kind is SpecKind.SEARCHER
    assert AgentSpec.parse(f"{ALL_SEEING}:top=2").is_ceiling and not AgentSpec.parse("search").is_ceiling
    assert (
        AgentSpec.parse("search-hands-seeing:worlds=8").is_ceiling and AgentSpec.parse("search-hands-seeing").is_search
    )
    assert not AgentSpec.parse("gubs-net").is_search


def test_short_names_label_long_specs():
    assert AgentSpec.parse("pkg.module:MyAgent").short_name == "MyAgent"
    assert AgentSpec.parse("runs/x/model.zip:sample").short_name == "model.zip:sample"
    assert AgentSpec.parse("search:top=4").short_name == "search:top=4"


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("", "non-empty string"),
        ("   ", "non-empty string"),
        (None, "not an agent: 'None'"),
        (3, "not an agent: '3'"),
        (b"random", "not an agent: \"b'random'\""),
        ("nonsense", "unknown agent 'nonsense'"),
        ("Random", "unknown agent"),
        ("ppo-9p", "unknown shipped model 'ppo-9p'"),
        ("heuristic:sample", "only a network samples"),
        ("search:sample", "unknown search setting"),
        ("weights.json:sample", "only a network samples"),
        ("search:worlds=0", "worlds must be int from 1"),
        ("search:worlds=8,worlds=9", "given twice"),
        ("search:base=runs/model.npz", "base must be one of"),
        ("search:base=x.json", "base must be one of"),
        ("ismcts:worlds=8", "unknown ismcts setting"),
        ("search-all-seeing:depth=3", "unknown search setting"),
        (":Agent", "cannot import ''"),
        (".relative:Agent", "cannot import '.relative'"),
        ("os:system; rm -rf /", "not a class name"),
        ("a:b:c", "not a class name"),
        ("a b:C", "cannot import 'a b'"),
        ("x" * (MAX_SPEC_LENGTH + 1), "at most 4,096 characters"),
        ("random\x00", "printable characters only"),
        ("runs/a\nb.zip", "printable characters only"),
        ("search:worlds=8\r\nrandom", "printable characters only"),
        ("pkg\x1b[2J:Agent", "printable characters only"),
    ],
)
def test_what_names_no_agent_is_one_short_line(value, words):
    with pytest.raises(AgentSpecError, match=words) as caught:
        AgentSpec.parse(value)
    message = str(caught.value)
    assert "\n" not in message and "\r" not in message and len(message) < 400


def test_a_long_unknown_spec_is_cut_short_in_the_message():
    with pytest.raises(AgentSpecError, match=r"unknown agent 'yyy.*'\.\.\.") as caught:
        AgentSpec.parse("y" * 4000)
    assert len(str(caught.value)) < 400


def test_parsing_never_imports_the_module_of_a_code_spec(tmp_path, monkeypatch):
    """Only make_agent imports it: a spec from anywhere can be parsed and checked without running code."""
    (tmp_path / "loud_module.py").write_text("raise SystemExit('imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = AgentSpec.parse("loud_module:Agent")
    assert spec.names_code and spec.code == ("loud_module", "Agent") and "loud_module" not in sys.modules
    with pytest.raises(AgentSpecError, match=r"cannot import 'loud_module'.*SystemExit: imported"):
        make_agent(spec)


def test_parsing_imports_no_torch():
    code = (
        "import sys\nfrom agents.bots.spec import AgentSpec\n"
        "for t in ('gubs-net:sample', 'ppo-2p', 'm.zip', 'w.json', 'pkg:Cls'):\n"
        "    AgentSpec.parse(t).model_file\n"
        "assert 'agents.bots.ppo' not in sys.modules  # the catalogue names the networks without their code\n"
        "for t in ('search:base=gubs-net', 'ismcts'):\n"
        "    AgentSpec.parse(t).model_file\n"
        "assert 'torch' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_parsing_reads_no_file():
    """A missing file is reported when the agent is built, with the messages make_agent always gave."""
    assert AgentSpec.parse("/nonexistent/model.zip").kind is SpecKind.MODEL_FILE
    with pytest.raises(AgentSpecError, match=r"no model file at /nonexistent/model\.zip"):
        make_agent("/nonexistent/model.zip")
    with pytest.raises(AgentSpecError, match=r"no heuristic weight set at /nonexistent/w\.json"):
        make_agent(AgentSpec.parse("/nonexistent/w.json"))


@pytest.mark.parametrize(
    "files, chosen",
    [(["model.zip"], "model.zip"), (["policy.npz"], "policy.npz"), (["policy.npz", "model.zip"], "policy.npz")],
)
def test_a_run_folder_names_its_final_model(tmp_path, files, chosen):
    for name in files:
        (tmp_path / name).write_bytes(b"")
    spec = AgentSpec.parse(str(tmp_path))
    assert spec.kind is SpecKind.MODEL_FILE and spec.model_file == tmp_path / chosen
    assert AgentSpec.parse(str(spec)) == spec


def test_a_folder_without_a_final_model_says_what_to_name(tmp_path):
    (tmp_path / "snapshots").mkdir()
    with pytest.raises(AgentSpecError, match=r"folder without a final model .*snapshots") as caught:
        AgentSpec.parse(str(tmp_path))
    assert "\n" not in str(caught.value)


def test_a_run_folder_plays(tmp_path):
    (tmp_path / "policy.npz").write_bytes(CATALOGUE["selfplay-2p"].path.read_bytes())
    agent = make_agent(str(tmp_path))
    observation, mask = np.zeros(512, dtype=np.float32), np.zeros(356, dtype=np.int8)
    mask[[3, 7]] = 1
    assert agent.act(observation, mask) in (3, 7)


def test_the_all_seeing_search_is_refused_when_built_without_permission():
    spec = AgentSpec.parse(ALL_SEEING)  # parsing is fine: it is building it that needs the caller's leave
    with pytest.raises(AgentSpecError, match="for measurements"):
        make_agent(spec)
    assert make_agent(spec, allow_all_seeing=True).name == ALL_SEEING


def test_make_agent_takes_parsed_or_text_and_names_the_agent_canonically():
    assert make_agent(AgentSpec.parse("search:top=4,worlds=8")).name == "search:worlds=8,top=4"
    assert make_agent("gubs-net:sample").name == "gubs-net:sample"
    assert make_agent(AgentSpec.parse("random")).name == make_agent("random").name


def test_equal_specs_hash_alike_so_sets_and_dicts_deduplicate():
    specs = [AgentSpec.parse(t) for t in ("search:top=4,worlds=64", "search:worlds=64,top=4", "random", " random")]
    assert len(set(specs)) == 2 and len(dict.fromkeys(specs)) == 2
    assert hash(specs[0]) == hash(specs[1])


def test_parse_distinct_refuses_one_agent_given_twice():
    assert parse_distinct(["random", "search:top=4"]) == [AgentSpec.parse("random"), AgentSpec.parse("search:top=4")]
    with pytest.raises(AgentSpecError, match=r"each bot may be given once; repeated: search:worlds=64,top=4"):
        parse_distinct(["search:worlds=64,top=4", "random", "search:top=4,worlds=64"], "bot")
    with pytest.raises(AgentSpecError, match=r"repeated: search$"):
        parse_distinct(["search", "search:worlds=512"])


def test_index_of_compares_parsed_specs():
    specs = [AgentSpec.parse("random"), AgentSpec.parse("search:worlds=64,top=4")]
    assert index_of("search:top=4,worlds=64", specs) == 1
    assert index_of("heuristic", specs) is None and index_of("nonsense", specs) is None


@pytest.mark.parametrize(
    ("text", "specs"),
    [
        ("heuristic", ["heuristic"]),
        ("heuristic, random", ["heuristic", "random"]),
        ("search:worlds=64,top=4,gubs-net:sample", ["search:worlds=64,top=4", "gubs-net:sample"]),
        ("ismcts:iterations=8,c=0.5,search:top=2,z=1", ["ismcts:iterations=8,c=0.5", "search:top=2,z=1"]),
        ("search,runs/a=b/model.zip", ["search", "runs/a=b/model.zip"]),
    ],
)
def test_a_list_of_specs_keeps_search_settings_together(text, specs):
    assert parse_list(text) == [AgentSpec.parse(s) for s in specs]


@pytest.mark.parametrize(("text", "words"), [("heuristic,,random", "non-empty"), ("search,worlds=8", "unknown agent")])
def test_a_bad_list_is_refused(text, words):
    with pytest.raises(AgentSpecError, match=words):
        parse_list(text)
