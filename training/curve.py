"""A training curve as a standalone SVG: strength against a baseline (ppg, 95% CI band) by games played."""

from __future__ import annotations

import json
import math
from pathlib import Path

WIDTH, HEIGHT, MARGIN = 640, 360, 56


def read_evaluations(log: Path) -> list[dict]:
    rows = [json.loads(line) for line in Path(log).read_text().splitlines() if line.strip()]
    return [r for r in rows if "eval" in r]


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart) covering low..high."""
    raw = (high - low) / max(count - 1, 1)
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = min((m * magnitude for m in (1, 2, 5, 10)), key=lambda s: abs(math.log(s / raw)))
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]


def write_curve(log: Path, out: Path, x_key: str = "games", x_label: str = "self-play games") -> None:
    """Draw ppg vs ``x_key`` (games) from ``log`` (training/train.py's JSONL) into ``out``; nothing to draw, no file."""
    evals = read_evaluations(log)
    if not evals:
        return
    games = [e[x_key] for e in evals]
    ppg = [e["eval"]["ppg"] for e in evals]
    low = [e["eval"]["ci95"][0] for e in evals]
    high = [e["eval"]["ci95"][1] for e in evals]
    x_max = max(games) or 1
    y_min, y_max = min(min(low), -0.5), max(max(high), 0.5)

    def x(g: float) -> float:
        return MARGIN + (WIDTH - 2 * MARGIN) * g / x_max

    def y(v: float) -> float:
        return HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN) * (v - y_min) / (y_max - y_min)

    band = [f"{x(g):.1f},{y(v):.1f}" for g, v in zip(games, high)] + [
        f"{x(g):.1f},{y(v):.1f}" for g, v in zip(reversed(games), reversed(low))
    ]
    line = " ".join(f"{x(g):.1f},{y(v):.1f}" for g, v in zip(games, ppg))
    ticks = []
    for v in nice_ticks(y_min, y_max):
        ticks.append(f'<text x="{MARGIN - 6}" y="{y(v) + 4:.1f}" text-anchor="end" font-size="11">{v:+.1f}</text>')
    for g in nice_ticks(0, x_max):
        ticks.append(f'<text x="{x(g):.1f}" y="{HEIGHT - MARGIN + 16}" text-anchor="middle" '
                     f'font-size="11">{g:,.0f}</text>')
    title = f"Points per game against {evals[-1]['eval'].get('opponent', 'pubeval')} (duplicate dice, 95% CI)"
    svg = f"""<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="{WIDTH / 2}" y="22" text-anchor="middle" font-size="14">{title}</text>
<line x1="{MARGIN}" y1="{y(0):.1f}" x2="{WIDTH - MARGIN}" y2="{y(0):.1f}" stroke="#999" stroke-dasharray="4 3"/>
<polygon points="{' '.join(band)}" fill="#9ecae1" opacity="0.6"/>
<polyline points="{line}" fill="none" stroke="#08519c" stroke-width="2"/>
{''.join(f'<circle cx="{x(g):.1f}" cy="{y(v):.1f}" r="3" fill="#08519c"/>' for g, v in zip(games, ppg))}
<rect x="{MARGIN}" y="{MARGIN}" width="{WIDTH - 2 * MARGIN}" height="{HEIGHT - 2 * MARGIN}" fill="none" stroke="#333"/>
{''.join(ticks)}
<text x="{WIDTH / 2}" y="{HEIGHT - 14}" text-anchor="middle" font-size="12">{x_label}</text>
</svg>
"""
    Path(out).write_text(svg)
