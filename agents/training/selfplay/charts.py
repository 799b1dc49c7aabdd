"""``curves.png`` of a self-play run: the win rates beside the diagnostics that say whether the updates learn."""

from __future__ import annotations

from pathlib import Path

DIAGNOSTICS = ("grad_cosine", "entropy", "approx_kl", "clip_fraction", "explained_variance")
"""The progress.csv columns drawn beside the curve, each in its own panel."""


def smoothed(values: list[float], window: int) -> list[float]:
    """The running mean over the last ``window`` values (fewer at the start)."""
    out, total = [], 0.0
    for i, value in enumerate(values):
        total += value
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def plot_run(run_dir: Path, evaluation: list[dict[str, str]], progress: list[dict[str, str]]) -> Path:
    """Draw ``run_dir/curves.png`` from the rows of its eval.csv and progress.csv; returns the picture's path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    curve = axes[0][0]
    for key in sorted({(r["players"], r["opponent"]) for r in evaluation}):
        series = [r for r in evaluation if (r["players"], r["opponent"]) == key]
        x = [int(r["timesteps"]) / 1e6 for r in series]
        line = curve.plot(x, [float(r["win_rate"]) for r in series], marker=".", label=f"{key[0]}p vs {key[1]}")
        colour = line[0].get_color()
        curve.fill_between(
            x, [float(r["low"]) for r in series], [float(r["high"]) for r in series], color=colour, alpha=0.15
        )
        adjusted = [r for r in series if r.get("adjusted")]
        if adjusted:  # the luck-adjusted rate (eval_adjust_luck), dashed, with its narrower interval
            ax_x = [int(r["timesteps"]) / 1e6 for r in adjusted]
            curve.plot(ax_x, [float(r["adjusted"]) for r in adjusted], linestyle="--", color=colour,
                       label=f"{key[0]}p vs {key[1]}, luck-adjusted")  # fmt: skip
            curve.fill_between(ax_x, [float(r["adjusted_low"]) for r in adjusted],
                               [float(r["adjusted_high"]) for r in adjusted], color=colour, alpha=0.3)  # fmt: skip
    curve.set_title("win rate (95% interval)")
    curve.set_ylim(0, 1)
    curve.legend(fontsize="small")
    steps = [int(r["timesteps"]) / 1e6 for r in progress]
    window = max(1, len(progress) // 40)
    for ax, column in zip([a for row in axes for a in row][1:], DIAGNOSTICS, strict=True):
        values = [float(r[column]) for r in progress]
        ax.plot(steps, values, color="lightgray", linewidth=0.8)
        ax.plot(steps, smoothed(values, window), color="tab:blue")
        ax.set_title(column)
        if column == "grad_cosine":
            ax.axhline(0.3, color="tab:green", linestyle=":", linewidth=1)
    for ax in [a for row in axes for a in row]:
        ax.set_xlabel("timesteps (millions)")
        ax.grid(alpha=0.3)
    fig.suptitle(f"self-play run {run_dir.name}")
    fig.tight_layout()
    png = run_dir / "curves.png"
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return png
