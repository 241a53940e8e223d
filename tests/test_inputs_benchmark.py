"""benchmarks/inputs.py: fresh contact nets on two encodings, fitted on one generation's labels and judged."""

import json
import shutil
from dataclasses import replace

import pytest

import gammon.benchmarks.inputs as inputs
from gammon.engine.errors import GammonError
from gammon.training.recipe import RECIPES, Recipe, run_recipe

pytest.importorskip("gnubg_nn")


def test_the_inputs_study_fits_each_encoding_and_seed_and_reuses_its_fits(tmp_path, capsys):
    tiny = RECIPES["tiny"]
    td = replace(tiny.td, games=300, checkpoint_every=300, eval_every=300, eval_games=20)
    generations = [replace(tiny.generations[0], positions=400, epochs=1)]
    recipe = Recipe(td=td, generations=generations, eval_games=20, prune=tiny.prune)
    run_recipe(recipe, tmp_path / "run", progress=False)
    argv = [str(tmp_path / "run" / "gen1"), "--encodings", "contact-v1,contact-v2", "--seeds", "1,2", "--hidden", "8",
            "--epochs", "2", "--positions", "15", "--no-progress", "--out", str(tmp_path / "study")]
    assert inputs.main(argv) == 0
    fits = json.loads((tmp_path / "study" / "results.json").read_text())
    assert [(f["encoding"], f["seed"]) for f in fits] == [("contact-v1", 1), ("contact-v1", 2), ("contact-v2", 1),
                                                          ("contact-v2", 2)]
    assert all(f["minus_base"] == 0 for f in fits[:2])  # the base against itself
    assert all(f["move_loss"] >= 0 and 0 < f["held_out_divergence"] for f in fits)
    assert len({f["held_out_divergence"] for f in fits}) == 4  # four different nets
    first = capsys.readouterr().out
    assert "contact-v2 mean over 2 seeds" in first
    fitted = {path: path.stat().st_mtime_ns for path in (tmp_path / "study").glob("*.pt")}
    assert inputs.main(argv) == 0  # a second run finds the fits by their records and fits nothing again
    assert capsys.readouterr().out == first
    assert {path: path.stat().st_mtime_ns for path in (tmp_path / "study").glob("*.pt")} == fitted
    with pytest.raises(GammonError, match="holds a contact-v1 fit of seed 1 made with other settings"):
        inputs.main(argv + ["--epochs", "3"])
    # A generation alone (distill --model M) names its teacher; the same teacher gives the same fits.
    shutil.copytree(tmp_path / "run" / "gen1", tmp_path / "alone" / "gen1")
    alone = [str(tmp_path / "alone" / "gen1")] + argv[1:-1] + [str(tmp_path / "study-alone")]
    with pytest.raises(GammonError, match="give --teacher, the model that labelled it"):
        inputs.main(alone)
    assert inputs.main(alone + ["--teacher", str(tmp_path / "run" / "td" / "model.pt")]) == 0
    again = json.loads((tmp_path / "study-alone" / "results.json").read_text())
    assert [f["held_out_divergence"] for f in again] == [f["held_out_divergence"] for f in fits]
