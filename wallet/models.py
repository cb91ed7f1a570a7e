"""Accounts, transfers and postings: see wallet/services.py."""
