"""Expert iteration's expert half: decisions labelled by the search bot (:mod:`~agents.recipes.expert.labels`).

``python -m agents.recipes.expert`` writes a labels file (:mod:`agents.training.imitation.labels_file`);
``python train.py --labels FILE`` imitates it.
"""

from agents.recipes.expert.labels import label

__all__ = ["label"]
