"""The fair-deal check of war-client: this client's seeds, the replay of a revealed deal,
what it says from the fingerprint to the verdict."""
