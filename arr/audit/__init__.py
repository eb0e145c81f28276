"""Approvals and their verification.

- ``approval``: a proposed action approved or refused, written to the keyed ledger.
- ``report``: ``arr audit``: both chains verified, and what they hold.
"""
