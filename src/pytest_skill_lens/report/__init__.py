"""Reports rendered from outcomes and the gate: pure, they return text."""
