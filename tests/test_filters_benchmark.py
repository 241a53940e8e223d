"""benchmarks/filters.py: move-filter settings compared by the search's own judgement."""

from gammon.app.analyse import filters_text
from gammon.benchmarks.filters import compare
from gammon.benchmarks.thinking import read_positions
from gammon.engine.search.analysis import DEEP_FILTERS, MOVE_FILTERS
from gammon.models.players import load_analyst


def test_the_first_setting_judges_and_a_narrower_one_is_scored_against_it():
    net = load_analyst("default")
    rows = compare(net, read_positions(4), {"all": {}, "one": {0: (1, 0.0)}}, plies=1)
    judge, narrow = rows
    assert judge["same"] == judge["positions"] == 4 and judge["lost_mp"] == 0.0
    assert narrow["positions"] == 4 and (narrow["same"] == 4) == (narrow["lost_mp"] == 0.0)
    assert filters_text(MOVE_FILTERS) == "0:8:0.16,2:2:0.04"
    assert filters_text(DEEP_FILTERS) == "0:8:0.16,1:5:0.1,2:2:0.04"
