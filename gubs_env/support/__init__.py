"""What the commands and file readers share.

One-line errors and exit statuses (:mod:`~gubs_env.support.cli`); bounded reads and atomic writes
(:mod:`~gubs_env.support.files`).
"""
