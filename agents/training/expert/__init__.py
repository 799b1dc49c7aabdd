"""Expert iteration's expert half: decisions labelled by the search bot (:mod:`~agents.training.expert.labels`).

``python -m agents.training.expert`` writes a labels file; ``python train.py --labels FILE`` imitates it.
"""

from agents.training.expert.labels import LabelsFileError, SearchLabels, join_labels, label, load_labels, save_labels

__all__ = ["LabelsFileError", "SearchLabels", "join_labels", "label", "load_labels", "save_labels"]
