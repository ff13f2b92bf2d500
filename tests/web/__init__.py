"""Pages, forms and the API, through the test client."""
